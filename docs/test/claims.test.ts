/**
 * Lists of names the READMEs and docs repeat in prose are the code's: every `{ inFlight, … }`
 * (what `handler.stats()` returns) names exactly the fields of `HandlerStats`, and the adapters
 * README's one-line `serve()` surface names exactly the options Node, Deno and Bun share and the
 * fields their servers resolve with.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, read } from './markdown.ts';

/** The members of `interface <name>` in a source file, with those of the interfaces it extends. */
function members(files: readonly string[], name: string): string[] {
  for (const file of files) {
    const source = read(file);
    const head = new RegExp(`export interface ${name}(?: extends ([\\w, ]+))? \\{\\n`).exec(source);
    if (!head) continue;
    const body = source.slice(head.index + head[0].length, source.indexOf('\n}', head.index));
    const own = [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[:(]/gm)].map((m) => m[1] as string);
    const inherited = (head[1] ?? '')
      .split(',')
      .map((base) => base.trim())
      .filter((base) => base !== '')
      .flatMap((base) => members(files, base));
    return [...new Set([...own, ...inherited])].sort();
  }
  throw new Error(`no interface ${name} in ${files.join(', ')}`);
}

const sourcesOf = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .map((name) => `${dir}/${name}`)
    .filter((p) => p.endsWith('.ts'));
const ADAPTER_SOURCES = ['node', 'deno', 'bun', 'shared'].flatMap((dir) =>
  sourcesOf(`packages/adapters/src/${dir}`),
);

/** Names listed in `{ a, b, c() }`: `a`, `b`, `c`. */
const listed = (list: string) =>
  list
    .split(',')
    .map((item) => item.trim().replace(/\(\)$/, ''))
    .filter((item) => item !== '')
    .sort();

const DOCUMENTS = [
  'README.md',
  'packages/core/README.md',
  'packages/adapters/README.md',
  'packages/redis/README.md',
  'docs/authorization.md',
  'docs/architecture.md',
];

describe('stats()', () => {
  const fields = members(['packages/core/src/endpoint/events.ts'], 'HandlerStats');

  test('HandlerStats is read from the source', () => {
    expect(fields).toEqual(expect.arrayContaining(['inFlight', 'sessions', 'evicted', 'tasks']));
  });

  test.each(DOCUMENTS)(
    '%s: every `{ inFlight, … }` lists exactly the fields of HandlerStats',
    (path) => {
      for (const match of read(path).matchAll(/\{ (inFlight, [^}]*?) \}/g))
        expect(listed(match[1] as string), path).toEqual(fields);
    },
  );

  test('the core README lists them', () => {
    expect(read('packages/core/README.md')).toMatch(/`stats\(\)` +\| `\{ inFlight, /);
  });
});

describe('serve()', () => {
  const shared = (name: string) => {
    const perRuntime = ['node', 'deno', 'bun'].map((runtime) =>
      members(
        ADAPTER_SOURCES.filter((p) => p.includes(`/${runtime}/`) || p.includes('/shared/')),
        name,
      ),
    );
    return (perRuntime[0] ?? []).filter((m) => perRuntime.every((list) => list.includes(m)));
  };
  const options = shared('ServeOptions');
  const result = [
    ...new Set([...members(ADAPTER_SOURCES, 'ListenInfo'), 'server', 'close']),
  ].sort();
  const readme = read('packages/adapters/README.md');
  const line =
    /`serve\(handler, \{ ([^}]+) \}\)` resolves once listening with `\{ ([^}]+) \}`/.exec(
      readme.replace(/\n/g, ' '),
    );

  test('the adapters README says what serve() takes and what it resolves with', () => {
    expect(line).not.toBeNull();
    expect(options).toEqual(expect.arrayContaining(['port', 'hostname', 'onListen']));
  });

  test('the options listed are the ones Node, Deno and Bun share', () => {
    expect(listed(line?.[1] ?? '')).toEqual([...options].sort());
  });

  test('the fields listed are ListenInfo and server, close()', () => {
    expect(listed(line?.[2] ?? '')).toEqual(result);
  });

  test.each(DOCUMENTS)(
    '%s: every `{ url, … }` is ListenInfo, or ListenInfo with server and close()',
    (path) => {
      const info = members(ADAPTER_SOURCES, 'ListenInfo');
      for (const match of read(path).matchAll(/`\{ (url, [^}]*) \}`/g)) {
        const names = listed(match[1] as string);
        expect([info, result], `${path}: { ${match[1]} }`).toContainEqual(names);
      }
    },
  );
});
