/**
 * The defaults the READMEs print are the ones the code uses: each option table between
 * `<!-- defaults: … -->` and `<!-- /defaults -->` is checked against `DEFAULTS`, every key of
 * `DEFAULTS` appears in one of them, and the handler's table lists every option of
 * `McpHandlerOptions`.
 */
import { DEFAULTS } from '@edge-mcp/core';
import { describe, expect, test } from 'vitest';
import { codeSpans, headerOf, read, section, tableRows } from './markdown.ts';

type Key = keyof typeof DEFAULTS;

/** How a default is written in a table: the first code span of the default cell. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return String(value);
}

/** Option (as the table names it) → the default it must show. */
const EXPECTED: Record<string, { keys: Key[]; text: string }> = {
  path: one('path'),
  maxBodyBytes: one('maxBodyBytes'),
  keepAliveMs: one('keepAliveMs'),
  shutdownTimeoutMs: one('shutdownTimeoutMs'),
  'requestState.ttlMs': one('requestStateTtlMs'),
  cache: {
    keys: ['cacheTtlMs', 'cacheScope'],
    text: `{ ttlMs: ${literal(DEFAULTS.cacheTtlMs)}, cacheScope: ${literal(DEFAULTS.cacheScope)} }`,
  },
  pageSize: one('pageSize'),
  disconnectGraceMs: one('disconnectGraceMs'),
  retryMs: one('retryMs'),
  idleTimeoutMs: one('idleTimeoutMs'),
  maxSessions: one('maxSessions'),
  maxEventsPerSession: one('maxEventsPerSession'),
};

function one(key: Key): { keys: Key[]; text: string } {
  return { keys: [key], text: literal(DEFAULTS[key]) };
}

/** The options a row names: `a`, `a.b`, `` `f(event)`, `g(event)` `` → f, g. */
function namesOf(cell: string): string[] {
  return codeSpans(cell).map((span) => span.replace(/\(.*\)$/, ''));
}

interface Row {
  names: string[];
  default: string;
}

function rows(readme: string, name: string): Row[] {
  const text = section(readme, 'defaults', name);
  const column = headerOf(text).indexOf('default');
  expect(column, `the ${name} table has a "default" column`).toBeGreaterThan(0);
  return tableRows(text).map((cells) => ({
    names: namesOf(cells[0] ?? ''),
    default: cells[column] ?? '',
  }));
}

const readme = read('packages/core/README.md');
const tables = {
  createMcpHandler: rows(readme, 'createMcpHandler'),
  sessions: rows(readme, 'sessions'),
};

describe.each(Object.entries(tables))('the %s defaults table', (_name, table) => {
  // Rows whose default is not a DEFAULTS value (a hook, a class instance, `[]`) are not checked.
  const checked = table.flatMap((row) =>
    row.names.filter((name) => EXPECTED[name] !== undefined).map((name) => [name, row] as const),
  );
  test.each(checked)('%s shows the default the code uses', (name, row) => {
    expect(codeSpans(row.default)[0], `default of ${name}`).toBe(EXPECTED[name]?.text);
  });
});

test('every key of DEFAULTS is shown in a table', () => {
  const shown = new Set(
    Object.values(tables)
      .flat()
      .flatMap((row) => row.names)
      .flatMap((name) => EXPECTED[name]?.keys ?? []),
  );
  expect(Object.keys(DEFAULTS).filter((key) => !shown.has(key as Key))).toEqual([]);
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
