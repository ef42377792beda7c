#!/usr/bin/env node
/**
 * Builds the published package in the current directory: `tsc -p tsconfig.build.json` emits ESM
 * JavaScript, `.d.ts` and their maps from `src/` into a fresh `dist/`. tsc leaves relative `.ts`
 * specifiers as written in declaration files (microsoft/TypeScript#61037) while it rewrites them
 * in JavaScript; they are rewritten here too, so every consumer's resolver sees `.js` files that
 * exist. `ts` → `js` keeps each line's length, so the declaration maps stay exact.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dist = join(process.cwd(), 'dist');
rmSync(dist, { recursive: true, force: true });
const require = createRequire(join(process.cwd(), 'package.json'));
const tsc = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

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
console.log(`built ${dist} (${rewritten} declaration files had .ts specifiers rewritten)`);
