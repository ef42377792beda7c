/**
 * The migration guide shows the example files as they are: every fenced block after an
 * `<!-- example: examples/<file> -->` marker equals that file (which `pnpm typecheck` checks),
 * and every example file is shown.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { examples, ROOT, read } from './markdown.ts';

const guide = read('docs/migration.md');
const shown = examples(guide);
const files = readdirSync(join(ROOT, 'docs/examples')).map((name) => `examples/${name}`);

test('every example file is shown in the guide', () => {
  expect([...shown.keys()].sort()).toEqual(files.sort());
});

test.each(files)('the guide shows %s as it is', (file) => {
  expect(shown.get(file)).toBe(read(`docs/${file}`));
});
