#!/usr/bin/env node
/**
 * Builds the published package in the current directory into a fresh `dist/`:
 *
 * - JavaScript: esbuild bundles each entry its `publishConfig.exports` names, with code shared by
 *   several entries split into `dist/chunks/`. Dependencies, peers and runtime built-ins stay
 *   imports. A runtime loads a handful of files instead of one per source module: on Bun the
 *   README's server spent about 11 ms of its start-up resolving and transpiling ~150 files of
 *   `@edge-mcp/core` alone (36 ms to import it, 22 ms bundled). Source maps point at `src/`,
 *   which the package ships.
 * - Declarations: `tsc -p tsconfig.build.json --emitDeclarationOnly`, one `.d.ts` per module with
 *   its map. tsc leaves relative `.ts` specifiers as written in declaration files
 *   (microsoft/TypeScript#61037); they are rewritten here, so every consumer's resolver sees
 *   files that exist. `ts` → `js` keeps each line's length, so the declaration maps stay exact.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const require = createRequire(join(root, 'package.json'));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const tsc = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  stdio: 'inherit',
});

const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;
let rewritten = 0;
for (const entry of readdirSync(dist, { recursive: true })) {
  const name = String(entry);
  if (!name.endsWith('.d.ts')) continue;
  const file = join(dist, name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(SPECIFIER, (_, head, path, tail) => `${head}${path}.js${tail}`);
  if (fixed !== text) {
    writeFileSync(file, fixed);
    rewritten++;
  }
}

/** Every `import` target of the published exports (conditions included), as its source file. */
function entryPoints(exports) {
  const targets = new Set();
  const walk = (value) => {
    if (typeof value === 'string') targets.add(value);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) if (key !== 'types') walk(inner);
    }
  };
  walk(exports);
  return [...targets].map((target) => {
    if (!/^\.\/dist\/.*\.js$/.test(target)) throw new Error(`export ${target} is not in dist/`);
    return join(root, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
  });
}

const external = [
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
  ...Object.keys(manifest.optionalDependencies ?? {}),
].flatMap((name) => [name, `${name}/*`]);

const { build } = await import(pathToFileURL(require.resolve('esbuild')).href);
const result = await build({
  entryPoints: entryPoints(manifest.publishConfig.exports),
  outdir: dist,
  outbase: join(root, 'src'),
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: [...external, 'node:*', 'cloudflare:*'],
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'error',
  metafile: true,
});
// A dependency missing from the manifest would be inlined silently and shipped twice.
const inlined = Object.keys(result.metafile.inputs).filter((file) => file.includes('node_modules'));
if (inlined.length > 0) throw new Error(`dist/ would inline ${inlined.join(', ')}`);
const files = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
console.log(
  `built ${dist}: ${files.length} JavaScript files (${rewritten} declaration files had .ts specifiers rewritten)`,
);
