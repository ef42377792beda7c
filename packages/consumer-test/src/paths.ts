import { join } from 'node:path';

/** This package's directory and the workspace root. */
export const PACKAGE_DIR = join(import.meta.dirname, '..');
export const WORKSPACE = join(PACKAGE_DIR, '..', '..');
/** The packages we publish, by directory under packages/. */
export const PUBLISHED = ['core', 'adapters', 'redis'] as const;
