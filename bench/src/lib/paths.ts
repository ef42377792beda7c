/** Where things are: the bench package, its results, and the Deno and Bun binaries. */
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const BENCH_DIR = join(import.meta.dirname, '..', '..');
export const RESULTS_DIR = join(BENCH_DIR, 'results');
const APPS_DIR = join(BENCH_DIR, '..', 'apps');

/** The real deno binary (the npm package's bin is a Node wrapper that would outlive a kill). */
export function denoBinary(): string {
  const pkg = createRequire(join(APPS_DIR, 'deno', 'package.json')).resolve('deno/package.json');
  return createRequire(pkg).resolve('@deno/linux-x64-glibc/deno');
}

export function bunBinary(): string {
  return join(APPS_DIR, 'bun', 'node_modules', 'bun', 'bin', 'bun.exe');
}
