import { join } from 'node:path';

/** This package's directory and the workspace root. */
export const PACKAGE_DIR = join(import.meta.dirname, '..');
export const WORKSPACE = join(PACKAGE_DIR, '..', '..');
/** The packages we publish, by directory under packages/. */
export const PUBLISHED = ['core', 'adapters', 'redis'] as const;
/**
 * The documents whose `// file:` blocks the consumer project gets and runs (see checks.ts), relative
 * to the workspace root. A docs test fails when another document shows a `// file:` block.
 */
export const DOCUMENTS = [
  'README.md',
  'packages/core/README.md',
  'packages/adapters/README.md',
  'packages/redis/README.md',
  'docs/authorization.md',
] as const;
