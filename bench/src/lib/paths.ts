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

/** The real deno and bun binaries, of apps/server's devDependencies (the npm bins are wrappers). */
export const denoBinary = () => denoOf(EXAMPLE_DIR);
export const bunBinary = () => bunOf(EXAMPLE_DIR);

/** Resolves from apps/worker, whose devDependency wrangler is. */
const workerRequire = () => createRequire(join(APPS_DIR, 'worker', 'package.json'));

/** wrangler's CLI script (run with this Node). */
export const wranglerScript = () =>
  join(dirname(workerRequire().resolve('wrangler/package.json')), 'bin', 'wrangler.js');

/** wrangler's version; throws when it is not installed. */
export const wranglerVersion = () =>
  (workerRequire()('wrangler/package.json') as { version: string }).version;

/** Why `binary` cannot run here (`what` installs it), or undefined when it can. */
export function missingBinary(binary: string, what: string): string | undefined {
  try {
    accessSync(binary, constants.X_OK);
    return undefined;
  } catch {
    return `${binary} not installed (${what})`;
  }
}
