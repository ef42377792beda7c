import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, vi } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

test('the core imports nothing from node: (it runs on Web APIs only)', () => {
  const sources = files(SRC);
  expect(sources.length).toBeGreaterThan(10);
  const offenders = sources.filter((file) =>
    /from\s+['"]node:|import\(\s*['"]node:|require\(/.test(readFileSync(file, 'utf8')),
  );
  expect(offenders).toEqual([]);
});

/**
 * workerd refuses, at a script's top level, timers, random values and I/O, and also an
 * `AbortController` made there: loading any entry point must do none of them (a Worker builds
 * its handler at the top level). Each global is replaced by a trap while every module of the
 * core is evaluated afresh.
 */
test('loading the core makes no timer, random value, fetch or AbortController', async () => {
  const used: string[] = [];
  const traps: Record<string, unknown> = {};
  const trap = (name: string) =>
    function refused() {
      used.push(name);
      throw new Error(`${name} at a module's top level`);
    };
  const globals = globalThis as unknown as Record<string, unknown>;
  const replaced = ['setTimeout', 'setInterval', 'fetch', 'AbortController'] as const;
  for (const name of replaced) {
    traps[name] = globals[name];
    globals[name] = trap(name);
  }
  const { getRandomValues, randomUUID } = crypto;
  crypto.getRandomValues = trap('crypto.getRandomValues') as typeof crypto.getRandomValues;
  crypto.randomUUID = trap('crypto.randomUUID') as typeof crypto.randomUUID;
  vi.resetModules();
  try {
    for (const entry of ['index', 'sessions', 'tasks', 'cluster', 'adapter', 'otel', 'jwt'])
      await import(`../src/${entry}.ts`);
  } finally {
    for (const name of replaced) globals[name] = traps[name];
    crypto.getRandomValues = getRandomValues;
    crypto.randomUUID = randomUUID;
  }
  expect(used).toEqual([]);
});
