/**
 * Each entry point's README section lists exactly what the entry exports: its runtime names
 * (imported) and its type-only names (read from the entry file's export statements). A section
 * is a table between `<!-- surface: <specifier> -->` and `<!-- /surface -->` whose first column is
 * the name in backticks.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { exportsOf } from './exports.ts';
import { codeSpans, markers, ROOT, read, section, tableRows } from './markdown.ts';

interface Entry {
  specifier: string;
  /** Entry files: one, or one per export condition (the bare adapters import). */
  files: Record<string, string>;
}

/** Every entry point of a package, from its package.json `exports`. */
function entries(dir: string): Entry[] {
  const pkg = JSON.parse(read(`${dir}/package.json`)) as {
    name: string;
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(pkg.exports).map(([key, target]) => ({
    specifier: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`,
    files: Object.fromEntries(
      Object.entries(typeof target === 'string' ? { default: target } : target)
        .filter(([condition]) => condition !== 'default' || typeof target === 'string')
        .map(([condition, file]) => [condition, join(ROOT, dir, file)]),
    ),
  }));
}

/** The names listed in a README's surface section. */
function listed(readme: string, specifier: string): string[] {
  return tableRows(section(readme, 'surface', specifier))
    .map((row) => codeSpans(row[0] ?? '')[0] ?? `(no name in "${row[0]}")`)
    .sort();
}

describe.each([
  ['packages/core', 'packages/core/README.md'],
  ['packages/adapters', 'packages/adapters/README.md'],
  ['packages/redis', 'packages/redis/README.md'],
])('%s', (dir, readmePath) => {
  const readme = read(readmePath);
  const all = entries(dir);

  test('the README has a surface section for every entry point, and no other', () => {
    expect(markers(readme, 'surface').sort()).toEqual(all.map((e) => e.specifier).sort());
  });

  test.each(all.map((entry) => [entry.specifier, entry] as const))(
    '%s: the README lists every exported name, runtime and type-only, and nothing else',
    async (_specifier, entry) => {
      const perCondition = Object.entries(entry.files).map(([condition, file]) => ({
        condition,
        names: exportsOf(file),
      }));
      // A conditional entry (the bare adapters import) exports, wherever `serve()` runs, what
      // the Node, Deno and Bun entries have in common; the README lists that shared surface.
      const serving = perCondition.filter((c) => ['node', 'deno', 'bun'].includes(c.condition));
      const sources = serving.length > 0 ? serving : perCondition;
      const shared = (sources[0]?.names ?? [])
        .map((n) => n.name)
        .filter((name) => sources.every((c) => c.names.some((n) => n.name === name)))
        .sort();
      expect(listed(readme, entry.specifier)).toEqual(shared);

      // The parser and the module agree on the runtime names (so the type-only ones are right too).
      const module = (await import(entry.specifier)) as Record<string, unknown>;
      const parsedValues = (
        perCondition.find((c) => c.condition === 'node') ?? perCondition[0]
      )?.names
        .filter((n) => !n.typeOnly)
        .map((n) => n.name)
        .sort();
      expect(Object.keys(module).sort()).toEqual(parsedValues);
    },
  );
});

test('the export parser reads every form the entry files use', () => {
  const names = exportsOf(join(ROOT, 'packages/adapters/src/deno/index.ts'));
  expect(names).toContainEqual({ name: 'serve', typeOnly: false });
  expect(names).toContainEqual({ name: 'ServeOptions', typeOnly: true });
  expect(names).toContainEqual({ name: 'ListenInfo', typeOnly: true });
  const core = exportsOf(join(ROOT, 'packages/core/src/index.ts'));
  expect(core).toContainEqual({ name: 'createMcpHandler', typeOnly: false });
  expect(core).toContainEqual({ name: 'McpHandler', typeOnly: true });
  expect(core).toContainEqual({ name: 'HandlerStats', typeOnly: true });
});
