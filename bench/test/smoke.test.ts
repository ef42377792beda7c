/**
 * `pnpm bench --quick` on a small subset (edge-mcp and its baselines on Node, every measure):
 * checks that the bench still runs — targets start, answer and stop, the outputs are written —
 * never the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { MEASURES } from '../src/config.ts';
import { unavailableRedis } from '../src/lib/services.ts';
import type { Report } from '../src/report/types.ts';

/** `pnpm bench --quick` on the subset, writing to `out`: its report. */
function quickRun(out: string): Report {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/run.ts', '--quick'], {
    cwd: join(import.meta.dirname, '..'),
    env: {
      ...process.env,
      BENCH_OUT: out,
      BENCH_RUNTIMES: 'node',
      BENCH_TARGETS: 'node/edge-mcp',
      // The idle-sessions measure takes a minute and more: test/idle-sessions.test.ts runs it.
      BENCH_MEASURES: MEASURES.filter((measure) => measure !== 'idle-sessions').join(','),
    },
    encoding: 'utf8',
    timeout: 170_000,
  });
  expect(run.status, `${run.stderr}\n${run.stdout}`).toBe(0);
  expect(run.stdout).toContain('**Targets**');
  return JSON.parse(readFileSync(out, 'utf8')) as Report;
}

test('the quick mode runs every measure (but idle-sessions) and writes its outputs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-bench-smoke-'));
  try {
    const report = quickRun(join(dir, 'smoke.json'));
    expect(report.config.partial).toBe(true);
    expect(report.load?.start).toHaveLength(3);
    const { throughput, startup, sessions, disconnect, shutdown, fairness = [] } = report.results;
    // 'node/edge-mcp' also selects the package targets (rate limits, Redis, auth, tasks).
    expect(throughput.map((row) => row.id)).toEqual([
      'node/bare',
      'node/edge-mcp/modern',
      'node/edge-mcp-ratelimit/modern',
      'node/edge-mcp/legacy-session',
      'node/edge-mcp-redis/legacy-session',
      'node/edge-mcp-redis-cluster/legacy-session',
      'node/edge-mcp-auth/modern',
      'node/edge-mcp-auth-nocache/modern',
      'node/edge-mcp-tasks/legacy-memory',
      'node/edge-mcp-redis/tasks',
    ]);
    // Redis targets are skipped (with their reason) where redis-server is not installed.
    const redis = unavailableRedis();
    for (const row of throughput.filter((r) => r.id.includes('redis'))) {
      expect(row.skipped).toBe(redis);
    }
    // The round trips per call are there (their value is the package's test's business).
    for (const id of [
      'node/edge-mcp-redis/legacy-session',
      'node/edge-mcp-redis-cluster/legacy-session',
    ]) {
      const roundTrips = throughput.find((r) => r.id === id)?.perCall?.redisRoundTrips?.median;
      expect(typeof roundTrips, id).toBe(redis ? 'undefined' : 'number');
    }
    const ran = throughput.filter((row) => !row.skipped);
    // Every throughput target reports the server's CPU per call, in every round (a verdict on
    // req/s alone says nothing where the load client saturates first).
    for (const row of ran) {
      for (const sample of row.samples) expect(sample.cpuUsPerRequest, row.id).toBeGreaterThan(0);
      expect(row.cpuUsPerRequest?.median, row.id).toBeGreaterThan(0);
    }
    // The fairness measure ran, and the server saw two principals: the attacker (127.0.0.2) was
    // refused, the victim (127.0.0.1, at half its limit) never.
    expect(fairness.map((row) => row.id)).toEqual(['node/edge-mcp']);
    expect(fairness[0]?.attackerStatuses['429'] ?? 0).toBeGreaterThan(0);
    expect(fairness[0]?.victimErrors).toBe(0);
    expect(report.goals.map((g) => g.label)).toContain(
      'Node: victim p99 while another principal sends 10× its rate limit, vs alone',
    );
    // The measures on the example server ('node/edge-mcp-example/…'): skipped, with their reason,
    // where redis-server, nginx or HAProxy is missing.
    const { crossCancel = [], proxySse = [] } = report.results;
    expect(crossCancel.map((row) => row.id)).toEqual([
      'node/edge-mcp-example/redis-cross-instance',
      'node/edge-mcp-example/redis-cluster-cross-instance',
    ]);
    expect(proxySse.map((row) => row.id)).toEqual([
      'node/edge-mcp-example/direct',
      'node/edge-mcp-example/nginx',
      'node/edge-mcp-example/haproxy',
    ]);
    const example = [...crossCancel, ...proxySse].filter((row) => !row.skipped);
    for (const row of [
      ...ran,
      ...startup,
      ...sessions,
      ...disconnect,
      ...shutdown,
      ...fairness,
      ...example,
    ]) {
      expect(row.errors, row.id).toEqual([]);
      expect(row.samples.length, row.id).toBeGreaterThan(0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
