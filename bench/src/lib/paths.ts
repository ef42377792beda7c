/**
 * Where things are: the bench package, its results, the example server, and the Deno, Bun and
 * wrangler binaries.
 */
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bunBinary as bunOf, denoBinary as denoOf } from '@edge-mcp/test-kit/node';

export const BENCH_DIR = join(import.meta.dirname, '..', '..');
/** The node binary of the Node targets (BENCH_NODE), by default the one running the bench. */
export const NODE_BINARY = process.env.BENCH_NODE || process.execPath;
export const RESULTS_DIR = join(BENCH_DIR, 'results');
const APPS_DIR = join(BENCH_DIR, '..', 'apps');
/** The example server (`pnpm start` runs it there). */
export const EXAMPLE_DIR = join(APPS_DIR, 'server');

/** The real deno binary, of apps/server's devDependency (the npm package's bin is a Node wrapper). */
export function denoBinary(): string {
  return denoOf(join(APPS_DIR, 'server'));
}

/** The real bun binary, of apps/server's devDependency. */
export function bunBinary(): string {
  return bunOf(join(APPS_DIR, 'server'));
}

/** wrangler's CLI script, of apps/worker's devDependency (run with this Node). */
export function wranglerScript(): string {
  const require = createRequire(join(APPS_DIR, 'worker', 'package.json'));
  return join(dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js');
}

/** Why `binary` cannot run here (`what` installs it), or undefined when it can. */
export function missingBinary(binary: string, what: string): string | undefined {
  try {
    accessSync(binary, constants.X_OK);
    return undefined;
  } catch {
    return `${binary} not installed (${what})`;
  }
}

/** wrangler's version, or why it cannot run. */
export function wranglerVersion(): string {
  const require = createRequire(join(APPS_DIR, 'worker', 'package.json'));
  return (require('wrangler/package.json') as { version: string }).version;
}
