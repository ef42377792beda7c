/**
 * No code block of the READMEs or docs goes unchecked. A TypeScript or JavaScript block is one of:
 *
 * - a runnable file (`// file: <name>` on its first line), in a document the consumer test
 *   collects (packages/consumer-test/src/paths.ts DOCUMENTS): it is installed next to the packed
 *   tarballs, type-checked and run there (packages/consumer-test/src/checks.ts says how);
 * - an excerpt (`<!-- excerpt: <path> -->` before it): its text is in that file, as it is;
 * - an example of a guide (migration, stores: `<!-- example: examples/<file> -->`), equal to the file
 *   (sync.test.ts; `pnpm typecheck` type-checks the files).
 *
 * Shell, JSON and text blocks are not checked.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DOCUMENTS } from '../../packages/consumer-test/src/paths.ts';
import { type FencedBlock, fencedBlocks, ROOT, read } from './markdown.ts';

const CODE = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'mjs', 'jsx']);
const FILE = /^\/\/ file: (\S+)\n/;
/** The guides that show whole example files (sync.test.ts compares them). */
const GUIDES = new Set(['docs/migration.md', 'docs/stores.md']);

/** Every README and doc that shows code to a reader (the design notes in docs/design excepted). */
const documents = [
  'README.md',
  'bench/README.md',
  ...['packages', 'apps'].flatMap((parent) =>
    readdirSync(join(ROOT, parent))
      .map((name) => `${parent}/${name}/README.md`)
      .filter((path) => {
        try {
          read(path);
          return true;
        } catch {
          return false;
        }
      }),
  ),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const blocks = documents.flatMap((document) =>
  fencedBlocks(read(document)).map((block) => ({ document, ...block })),
);

/** Why a block is checked, or undefined when it is not. */
function howChecked(block: FencedBlock & { document: string }): string | undefined {
  if (FILE.test(block.content))
    return (DOCUMENTS as readonly string[]).includes(block.document) ? 'file' : undefined;
  const excerpt = /^<!-- excerpt: (\S+) -->$/.exec(block.marker ?? '');
  if (excerpt) return 'excerpt';
  if (GUIDES.has(block.document) && /^<!-- example: \S+ -->$/.test(block.marker ?? ''))
    return 'example';
  return undefined;
}

describe('code blocks', () => {
  test('the documents include the root README and the published packages’ READMEs', () => {
    expect(documents).toEqual(expect.arrayContaining([...DOCUMENTS]));
    for (const path of [
      'README.md',
      'packages/core/README.md',
      'packages/adapters/README.md',
      'packages/redis/README.md',
    ])
      expect(DOCUMENTS, `the consumer test collects ${path}`).toContain(path);
  });

  test('every TypeScript and JavaScript block is a runnable file, an excerpt or a guide example', () => {
    const unchecked = blocks
      .filter((block) => CODE.has(block.lang) && howChecked(block) === undefined)
      .map((block) => `${block.document}:${block.line}`);
    expect(unchecked).toEqual([]);
  });

  test('every runnable file is in a document the consumer test collects', () => {
    const outside = blocks
      .filter((block) => FILE.test(block.content))
      .filter((block) => !(DOCUMENTS as readonly string[]).includes(block.document))
      .map((block) => `${block.document}:${block.line}`);
    expect(outside).toEqual([]);
  });

  test('runnable file names are unique across the documents (they share one directory)', () => {
    const names = blocks.flatMap((block) => FILE.exec(block.content)?.[1] ?? []);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    expect(names.length).toBeGreaterThan(10);
  });

  const excerpts = blocks.flatMap((block) => {
    const path = /^<!-- excerpt: (\S+) -->$/.exec(block.marker ?? '')?.[1];
    return path ? [[`${block.document}:${block.line}`, path, block.content] as const] : [];
  });

  test.each(excerpts)('%s is in %s as it is', (_where, path, content) => {
    expect(read(path)).toContain(content);
  });
});
