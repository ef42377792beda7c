/**
 * docs/hot-path.md lists the deliberate performance tricks of the request hot path, one table row
 * each between `<!-- hot-path -->` and `<!-- /hot-path -->`: where the trick lives and what checks
 * it. Every file a row names exists, every row names a test file or a bench target, and every
 * bench target it names is one of the bench's registry (bench/src/targets.ts and the target files
 * it spreads in).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { codeSpans, headerOf, ROOT, read, tableRows } from './markdown.ts';

const DOC = 'docs/hot-path.md';
const COLUMNS = ['trick', 'where', 'why', 'checked by'];

/** The text between `<!-- hot-path -->` and `<!-- /hot-path -->`. */
function hotPath(markdown: string): string {
  const open = '<!-- hot-path -->';
  const close = '<!-- /hot-path -->';
  const start = markdown.indexOf(open);
  if (start < 0) throw new Error(`no "${open}" marker in ${DOC}`);
  const end = markdown.indexOf(close, start);
  if (end < 0) throw new Error(`"${open}" is not closed by ${close} in ${DOC}`);
  return markdown.slice(start + open.length, end);
}

/** Runtimes a target id made per runtime (`${runtime}/…`) can start with. */
const RUNTIMES = ['node', 'deno', 'bun', 'workerd'];

/**
 * Every target id of the bench's registry: `id: '…'` literals, and ids made per runtime
 * (`` id: `${runtime}/…` ``, and `id: baseline` for `` const baseline = `${runtime}/bare` ``)
 * for each runtime.
 */
function benchTargetIds(): Set<string> {
  const registry = read('bench/src/targets.ts');
  const spread = [...registry.matchAll(/from '\.\/(targets-[\w-]+\.ts)'/g)].map((match) =>
    read(`bench/src/${match[1]}`),
  );
  const ids = new Set<string>();
  for (const source of [registry, ...spread]) {
    for (const match of source.matchAll(/\bid: '([^']+)'/g)) ids.add(match[1] as string);
    const perRuntime = [
      ...source.matchAll(/\bid: `([^`]+)`/g),
      ...source.matchAll(/\bconst baseline = `([^`]+)`/g),
    ].map((match) => match[1] as string);
    for (const template of perRuntime)
      for (const runtime of RUNTIMES) ids.add(template.replace(/\$\{runtime\}/g, runtime));
  }
  return ids;
}

/** A code span naming a file has an extension; any other names a bench target. */
const isFile = (span: string) => /\.[a-z]+$/i.test(span);
const isTestFile = (span: string) => /\.test\.ts$/.test(span);
const isRepoFile = (path: string) =>
  statSync(join(ROOT, path), { throwIfNoEntry: false })?.isFile() === true;

const text = hotPath(read(DOC));
const rows = tableRows(text);
const column = (name: string) => COLUMNS.indexOf(name);
const TARGETS = benchTargetIds();

test('the table has its four columns and a row per trick', () => {
  expect(headerOf(text)).toEqual(COLUMNS);
  // A parser that found no rows would pass every check below.
  expect(rows.length).toBeGreaterThanOrEqual(8);
  for (const row of rows) expect(row, row[0]).toHaveLength(COLUMNS.length);
});

test('the bench registry is read, ids made per runtime included', () => {
  expect(TARGETS).toContain('node/edge-mcp/modern');
  expect(TARGETS).toContain('node/edge-mcp-redis/legacy-session');
  expect(TARGETS).toContain('bun/edge-mcp/modern');
  expect(TARGETS).toContain('deno/bare');
});

describe.each(rows.map((row) => [row[column('trick')], row] as const))('%s', (_trick, row) => {
  test('every file under "where" exists', () => {
    const files = codeSpans(row[column('where')] ?? '');
    expect(files.length, 'files named').toBeGreaterThan(0);
    for (const file of files) expect(isRepoFile(file), `${file} exists`).toBe(true);
  });

  test('"checked by" names a test file or a bench target, and each one exists', () => {
    const spans = codeSpans(row[column('checked by')] ?? '');
    const files = spans.filter(isFile);
    const targets = spans.filter((span) => !isFile(span));
    expect(
      files.filter(isTestFile).length + targets.length,
      'a test file or a bench target',
    ).toBeGreaterThan(0);
    for (const file of files) expect(isRepoFile(file), `${file} exists`).toBe(true);
    for (const id of targets)
      expect(TARGETS.has(id), `${id} is a target of bench/src/targets.ts`).toBe(true);
  });
});
