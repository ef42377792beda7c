/**
 * The defaults the READMEs print are the ones the code uses: each option table between
 * `<!-- defaults: … -->` and `<!-- /defaults -->` is checked against `DEFAULTS`, every key of
 * `DEFAULTS` appears in one of them, and the handler's table lists every option of
 * `McpHandlerOptions`. The limits table of docs/limits.md lists every limit of the packages
 * (the core's, Node `serve()`'s, Redis's), each with the tests that exercise it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_SERVE_DEFAULTS } from '@edge-mcp/adapters/node';
import { DEFAULTS } from '@edge-mcp/core';
import { REDIS_DEFAULTS } from '@edge-mcp/redis';
import { describe, expect, test } from 'vitest';
import { codeSpans, headerOf, ROOT, read, section, tableRows } from './markdown.ts';

/** Every default as a dotted path (`limits.maxBatchSize` for a nested one) and its value. */
function flatten(value: object, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'object' && inner !== null) {
      for (const [k, v] of flatten(inner, `${prefix}${key}.`)) out.set(k, v);
    } else out.set(`${prefix}${key}`, inner);
  }
  return out;
}
const DEFAULT_VALUES = flatten(DEFAULTS);

/** How a default is written in a table: the first code span of the default cell. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return String(value);
}

/**
 * Options whose name is not their DEFAULTS key. Any other option named like a DEFAULTS key (or
 * a nested one, `limits.maxBatchSize`) must show that key's value.
 */
const RENAMED: Record<string, { keys: string[]; text: string }> = {
  'requestState.ttlMs': {
    keys: ['requestStateTtlMs'],
    text: literal(DEFAULTS.requestStateTtlMs),
  },
  maxTasks: { keys: ['tasks.maxTasks'], text: literal(DEFAULTS.tasks.maxTasks) },
  streamAfterMs: { keys: ['denoStreamAfterMs'], text: literal(DEFAULTS.denoStreamAfterMs) },
  maxTaskBytes: { keys: ['tasks.maxTaskBytes'], text: literal(DEFAULTS.tasks.maxTaskBytes) },
  maxBuckets: { keys: ['maxRateLimitBuckets'], text: literal(DEFAULTS.maxRateLimitBuckets) },
  // A tool's option; the default shown is an idempotent tool's.
  retry: { keys: ['tasks.idempotentAttempts'], text: literal(DEFAULTS.tasks.idempotentAttempts) },
  cache: {
    keys: ['cacheTtlMs', 'cacheScope'],
    text: `{ ttlMs: ${literal(DEFAULTS.cacheTtlMs)}, cacheScope: ${literal(DEFAULTS.cacheScope)} }`,
  },
};

/** Option (as the table names it) → the DEFAULTS keys it shows and how; none for the rest. */
function expected(name: string): { keys: string[]; text: string } | undefined {
  if (RENAMED[name]) return RENAMED[name];
  return DEFAULT_VALUES.has(name)
    ? { keys: [name], text: literal(DEFAULT_VALUES.get(name)) }
    : undefined;
}

/** The options a row names: `a`, `a.b`, `` `f(event)`, `g(event)` `` → f, g. */
function namesOf(cell: string): string[] {
  return codeSpans(cell).map((span) => span.replace(/\(.*\)$/, ''));
}

interface Row {
  names: string[];
  default: string;
  cells: string[];
}

/** `prefix`: where the table's options sit in DEFAULTS (`jwt.` for `jwtVerifier`'s). */
function rows(readme: string, name: string, prefix = ''): Row[] {
  const text = section(readme, 'defaults', name);
  const column = headerOf(text).indexOf('default');
  expect(column, `the ${name} table has a "default" column`).toBeGreaterThan(0);
  return tableRows(text).map((cells) => ({
    names: namesOf(cells[0] ?? '').map((option) => prefix + option),
    default: cells[column] ?? '',
    cells,
  }));
}

const readme = read('packages/core/README.md');
const limitsDoc = read('docs/limits.md');
const tables = {
  createMcpHandler: rows(readme, 'createMcpHandler'),
  sessions: rows(readme, 'sessions'),
  limits: rows(limitsDoc, 'limits'),
  jwtVerifier: rows(readme, 'jwtVerifier', 'jwt.'),
};

describe.each(Object.entries(tables))('the %s defaults table', (_name, table) => {
  // Rows whose default is not a DEFAULTS value (a hook, a class instance, `[]`) are not checked.
  const checked = table.flatMap((row) =>
    row.names.filter((name) => expected(name) !== undefined).map((name) => [name, row] as const),
  );
  test.each(checked)('%s shows the default the code uses', (name, row) => {
    expect(codeSpans(row.default)[0], `default of ${name}`).toBe(expected(name)?.text);
  });
});

test('every key of DEFAULTS is shown in a table', () => {
  const shown = new Set(
    Object.values(tables)
      .flat()
      .flatMap((row) => row.names)
      .flatMap((name) => expected(name)?.keys ?? []),
  );
  expect([...DEFAULT_VALUES.keys()].filter((key) => !shown.has(key))).toEqual([]);
});

test('the handler table lists every option of McpHandlerOptions, and no other', () => {
  const source = read('packages/core/src/endpoint/options.ts');
  const start = source.indexOf('export interface McpHandlerOptions {');
  const body = source.slice(start, source.indexOf('\n}', start));
  const options = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((match) => match[1] as string);
  expect(options.length).toBeGreaterThan(10);
  const listed = new Set(
    tables.createMcpHandler.flatMap((row) => row.names).map((n) => n.split('.')[0]),
  );
  expect([...listed].sort()).toEqual([...new Set(options)].sort());
});

describe('the limits table (docs/limits.md)', () => {
  const table = tables.limits;
  const byName = new Map(table.flatMap((row) => row.names.map((name) => [name, row] as const)));

  /** Every limit the packages have, as the table names it, and its default. */
  const limits = new Map<string, unknown>([
    ...Object.entries(DEFAULTS.limits).map(([key, value]) => [`limits.${key}`, value] as const),
    ...[...DEFAULT_VALUES].filter(([key]) => /^(tasks\.)?max/.test(key) && !key.includes('Ttl')),
    ['maxBuckets', DEFAULTS.maxRateLimitBuckets],
    ...Object.entries(NODE_SERVE_DEFAULTS),
    ['maxReplicas', REDIS_DEFAULTS.maxReplicas],
  ]);
  limits.delete('maxRateLimitBuckets'); // its option is the store's `maxBuckets`

  test.each([...limits])('%s has a row showing %s', (name, value) => {
    const row = byName.get(name);
    expect(row, `a row for ${name}`).toBeDefined();
    expect(codeSpans(row?.default ?? '')[0]).toBe(literal(value));
  });

  test('the rate limits have a row, off by default', () => {
    for (const name of ['rateLimit.perPrincipal', 'rateLimit.perTool', 'rateLimit.total'])
      expect(byName.get(name)?.default, name).toBe('off');
  });

  test.each(table.map((row) => [row.names.join(', '), row] as const))(
    '%s: the tests named exist and name it',
    (_names, row) => {
      const column = headerOf(section(limitsDoc, 'defaults', 'limits')).indexOf('tested in');
      const files = codeSpans(row.cells[column] ?? '');
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(existsSync(join(ROOT, file)), file).toBe(true);
      const text = files.map((file) => read(file)).join('\n');
      for (const name of row.names) {
        const option = name.split('.').at(-1) as string;
        expect(text, `${files.join(', ')} name ${option}`).toMatch(new RegExp(`\\b${option}\\b`));
      }
    },
  );
});
