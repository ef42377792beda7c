/**
 * Bundles a start-up entry (src/startup) into one ES module for its runtime: esbuild, the
 * runtime's export condition (`deno`, `bun` or `node`) chosen, not minified. Node built-ins stay
 * imports; CommonJS dependencies get a `require` from `node:module` (all three runtimes have it).
 * With `installed`, edge-mcp and zod stay imports too, and the file is written into the README's
 * project (lib/readme-app.ts), so they load from its node_modules as a user's server loads them
 * (no bundler, README.md); without, every dependency is inlined.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BENCH_DIR } from './paths.ts';

const BANNER =
  "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);";

export interface Bundle {
  file: string;
  bytes: number;
}

/** Bundles `entry` for `runtime` into `dir` (a directory of the run's own). */
export async function bundle(
  entry: string,
  runtime: 'node' | 'deno' | 'bun',
  dir: string,
  installed = false,
): Promise<Bundle> {
  const file = join(dir, `${runtime}-${entry.replace(/\.ts$/, '')}.mjs`);
  await build({
    entryPoints: [join(BENCH_DIR, 'src', 'startup', entry)],
    outfile: file,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    conditions: runtime === 'node' ? [] : [runtime],
    banner: { js: BANNER },
    external: installed ? ['@edge-mcp/*', 'zod', 'zod/*'] : [],
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size };
}
