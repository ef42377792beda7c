/**
 * Bundles a start-up entry (src/startup) into one ES module for its runtime, as a user ships a
 * server: esbuild, every dependency inlined, the runtime's export condition (`deno`, `bun` or
 * `node`) chosen, not minified. Node built-ins stay imports; CommonJS dependencies get a
 * `require` from `node:module` (all three runtimes have it).
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
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size };
}
