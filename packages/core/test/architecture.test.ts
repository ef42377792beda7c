/**
 * The shape of the code, checked: no import cycle in the source of any package, app or the bench
 * (type imports included: a cycle of types is still layers that read both ways), and the core's
 * folders import only downwards, in the order the architecture document gives.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const PACKAGES = join(import.meta.dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/**
 * A relative `import … from` or `export … from`, or an `import('…')`: a dynamic import, or a
 * type named through one (`typeof import('./x.ts')`), which madge counts as an import too.
 */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Each source file's relative imports (value, type and dynamic), as absolute paths. */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(root)) {
    const text = readFileSync(file, 'utf8');
    graph.set(
      file,
      [...text.matchAll(IMPORT)].map((match) =>
        resolve(dirname(file), (match[1] ?? match[2]) as string),
      ),
    );
  }
  return graph;
}

/** Every cycle's files (strongly connected components of more than one file, or a self-import). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, indices.get(next) as number));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/** Every package's, app's and the bench's source (madge's check of review §8, kept here). */
const SOURCES = [
  'packages/core/src',
  'packages/adapters/src',
  'packages/redis/src',
  'packages/test-kit/src',
  'packages/test-suite/src',
  'packages/consumer-test/src',
  'packages/stress/src',
  'apps/server/src',
  'apps/worker/src',
  'bench/src',
];

describe.each(SOURCES)('%s', (folder) => {
  const root = join(PACKAGES, '..', folder);

  test('has no import cycle', () => {
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(0);
    const named = cycles(graph).map((cycle) => cycle.map((file) => relative(root, file)).sort());
    expect(named).toEqual([]);
  });
});

test('the cycle finder finds a cycle (so the checks above can fail)', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  expect(cycles(graph)).toEqual([['c', 'b', 'a']]);
});

test('a module that names its own type through import() is a cycle, as madge counts it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-architecture-'));
  try {
    writeFileSync(join(dir, 'era.ts'), "export type Era = typeof import('./era.ts');\n");
    writeFileSync(join(dir, 'user.ts'), "export const load = () => import('./era.ts');\n");
    const named = cycles(importGraph(dir)).map((cycle) => cycle.map((file) => relative(dir, file)));
    expect(named).toEqual([['era.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The core's layers, bottom first: a folder may import its own files and any folder listed
 * before it, never one after it. The entry files (index, sessions, adapter) sit on top.
 */
const LAYERS = [
  ['protocol', 'lifecycle', 'defaults.ts', 'errors.ts'],
  ['schema', 'sse'],
  ['http'],
  ['auth'],
  ['server'],
  ['sessions'],
  ['tasks'],
  ['modern', 'legacy'],
  ['endpoint'],
  ['index.ts', 'sessions.ts', 'tasks.ts', 'cluster.ts', 'adapter.ts', 'otel.ts', 'jwt.ts'],
];

test('the core imports only downwards through its layers', () => {
  const root = join(PACKAGES, 'core', 'src');
  const layerOf = (file: string): number => {
    const top = relative(root, file).split('/')[0] as string;
    const layer = LAYERS.findIndex((names) => names.includes(top));
    if (layer < 0) throw new Error(`${relative(root, file)} is in no layer: add it to LAYERS`);
    return layer;
  };
  const upward: string[] = [];
  for (const [file, imports] of importGraph(root)) {
    for (const target of imports) {
      const from = layerOf(file);
      const to = layerOf(target);
      // Same layer: only within one folder (modern and legacy never import each other).
      const sameFolder =
        relative(root, file).split('/')[0] === relative(root, target).split('/')[0];
      if (to > from || (to === from && !sameFolder && from !== 0))
        upward.push(`${relative(root, file)} -> ${relative(root, target)}`);
    }
  }
  expect(upward).toEqual([]);
});
