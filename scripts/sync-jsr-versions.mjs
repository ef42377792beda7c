#!/usr/bin/env node
/**
 * After `changeset version`: each published package's jsr.json takes the version its package.json
 * now has, and its imports of the other @edge-mcp packages take that version's caret range, so npm
 * and JSR publish the same release. The consumer test fails a release where they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const read = (path) => JSON.parse(readFileSync(path, 'utf8'));
const dirs = ['core', 'adapters', 'redis'].map((name) => join(root, 'packages', name));
const versions = new Map(
  dirs.map((dir) => {
    const { name, version } = read(join(dir, 'package.json'));
    return [name, version];
  }),
);

for (const dir of dirs) {
  const jsrPath = join(dir, 'jsr.json');
  const jsr = read(jsrPath);
  const before = JSON.stringify(jsr);
  jsr.version = versions.get(jsr.name);
  for (const [key, target] of Object.entries(jsr.imports ?? {})) {
    const match = /^jsr:(@edge-mcp\/[a-z-]+)@\^[^/]+(\/.*)?$/.exec(target);
    if (match) jsr.imports[key] = `jsr:${match[1]}@^${versions.get(match[1])}${match[2] ?? ''}`;
  }
  if (JSON.stringify(jsr) === before) continue;
  writeFileSync(jsrPath, `${JSON.stringify(jsr, null, 2)}\n`);
  console.log(`${jsr.name}: jsr.json now at ${jsr.version}`);
}
