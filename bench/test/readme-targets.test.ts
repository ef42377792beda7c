/**
 * The README targets (issue 25) measure the README's server as users run it: the file and the
 * command lines are read from the README itself, the request log can be dropped, and their goals
 * are on CPU per call.
 */
import { describe, expect, test } from 'vitest';
import { readmeServer, readmeWorker } from '../src/lib/readme-app.ts';
import { STARTUP_TARGETS, THROUGHPUT_TARGETS } from '../src/targets.ts';
import { COUNT_STORAGE, STORAGE_TARGETS } from '../src/targets-cloudflare.ts';

describe('the README targets', () => {
  test("read the README's server and its three command lines, nothing added", () => {
    const { source, commands } = readmeServer();
    expect(source).toContain("from '@edge-mcp/adapters'");
    expect(source).toMatch(/\{ onRequest: requestLog\(\) \}/);
    expect(commands.get('node')).toEqual([]);
    expect(commands.get('bun')).toEqual([]);
    // As the README runs Deno: its permissions, no flag of the bench's own.
    expect(commands.get('deno')).toEqual(['run', '--allow-net', '--allow-env']);
  });

  test('are judged on CPU per call against the bare handler, the log against the quiet server', () => {
    const readme = THROUGHPUT_TARGETS.filter(
      (t) => t.spec.readme !== undefined && t.runtime !== 'workerd',
    );
    expect(readme.map((t) => t.id).sort()).toEqual(
      ['node', 'deno', 'bun']
        .flatMap((r) => [
          `${r}/readme/modern`,
          `${r}/readme/legacy-session`,
          `${r}/readme-log/modern`,
        ])
        .sort(),
    );
    for (const target of readme) {
      expect(target.goals?.map((g) => g.of)).toEqual(['cpu']);
      expect(target.baseline).toBe(
        target.id.includes('readme-log')
          ? `${target.runtime}/readme/modern`
          : `${target.runtime}/bare`,
      );
    }
  });

  test("take the README's Worker as written, judged against a bare Worker and McpAgent", () => {
    const { worker, config } = readmeWorker();
    expect(worker).toContain('export default createSessionWorker(');
    expect(JSON.parse(config.replace(/^\/\/.*$/gm, '')).main).toBe('worker.ts');
    const targets = THROUGHPUT_TARGETS.filter(
      (t) => t.spec.readme !== undefined && t.runtime === 'workerd',
    );
    expect(targets.map((t) => t.id)).toEqual([
      'workerd/readme/modern',
      'workerd/readme/legacy-session',
    ]);
    const [modern, legacy] = targets;
    expect(modern?.baseline).toBe('workerd/bare');
    expect(modern?.goals).toMatchObject([{ comparison: '>=', threshold: 0.9 }]);
    expect(legacy?.goals).toMatchObject([
      { against: 'workerd/agents/legacy-session', comparison: '>=', threshold: 1.5 },
      { against: 'workerd/agents/legacy-session', of: 'cpu', comparison: '<=', threshold: 0.5 },
    ]);
  });
});

describe('the start-up targets', () => {
  test('start edge-mcp as the README runs it: its server, its command, the installed packages', () => {
    for (const runtime of ['node', 'deno', 'bun']) {
      const of = (id: string) => STARTUP_TARGETS.find((t) => t.id === `${runtime}/${id}`)?.spec;
      expect(of('edge-mcp')).toMatchObject({ readme: 'no-log' });
      // The parts of its figure load edge-mcp and zod from the same node_modules.
      expect(of('edge-mcp-plain')).toMatchObject({ installed: true });
      expect(of('bare-zod')).toMatchObject({ installed: true });
      expect(of('bare')?.installed).toBeUndefined();
    }
  });
});

describe('peers in throughput runs', () => {
  test('run un-instrumented: only the storage measure counts Durable Object storage', () => {
    const counting = (env: Record<string, string> | undefined) =>
      env?.COUNT_STORAGE === COUNT_STORAGE.COUNT_STORAGE;
    const instrumented = THROUGHPUT_TARGETS.filter((t) => counting(t.spec.env));
    expect(instrumented.map((t) => t.id)).toEqual([]);
    // The storage targets do count (else their figures would be zeros).
    expect(STORAGE_TARGETS.map((t) => counting(t.spec.env))).toEqual([true, true]);
    expect(THROUGHPUT_TARGETS.some((t) => t.id === 'workerd/agents/legacy-session')).toBe(true);
  });
});
