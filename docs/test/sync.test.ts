/**
 * The guides (migration, stores) show the example files as they are: every fenced block after an
 * `<!-- example: examples/<file> -->` marker equals that file (which `pnpm typecheck` checks),
 * and every example file is shown in one of them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { examples, ROOT, read } from './markdown.ts';

const shown = new Map([
  ...examples(read('docs/migration.md')),
  ...examples(read('docs/stores.md')),
]);
const files = readdirSync(join(ROOT, 'docs/examples')).map((name) => `examples/${name}`);

test('every example file is shown in a guide', () => {
  expect([...shown.keys()].sort()).toEqual(files.sort());
});

test.each(files)('the guide shows %s as it is', (file) => {
  expect(shown.get(file)).toBe(read(`docs/${file}`));
});
