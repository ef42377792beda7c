/**
 * Shutdown with sessions and in-flight calls: SIGTERM to a fresh edge-mcp Node process once it
 * counts every `sleep` in flight, timed to its exit (README.md, Method).
 */
import { request } from 'node:http';
import { until } from '@edge-mcp/test-kit';
import type { Config } from '../config.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { initializeShape, legacyPostHeaders, legacySleepBody, openSession } from '../lib/mcp.ts';
import type { TargetSpec } from '../lib/spawn.ts';
import { spread } from '../lib/stats.ts';
import { LEGACY, type ProbeTarget } from '../targets.ts';
import { addAll, measureRows, withTarget } from './measure.ts';

/** `legacy sleep` (60 s) on each session; resolves how each call ended once it has. */
function sleepCalls(mcpUrl: string, ids: string[], outcomes: Record<string, number>) {
  return ids.map(
    (id, n) =>
      new Promise<void>((resolve) => {
        const count = (key: string) => {
          outcomes[key] = (outcomes[key] ?? 0) + 1;
          resolve();
        };
        const req = request(mcpUrl, {
          method: 'POST',
          agent: false,
          headers: legacyPostHeaders(LEGACY, id),
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => count(String(res.statusCode)));
          res.on('error', () => count('reset'));
        });
        req.on('error', () => count('reset'));
        req.end(legacySleepBody(n + 1, 60_000));
      }),
  );
}

function runShutdown(spec: TargetSpec, config: Config) {
  return withTarget(spec, async (server) => {
    const ids: string[] = [];
    for (let i = 0; i < config.inFlight; i++) {
      const id = await openSession(server.mcpUrl, LEGACY);
      ids.push(id);
    }
    const rest = config.shutdownSessions - ids.length;
    if (rest > 0) {
      const run = await load({
        url: server.mcpUrl,
        shape: initializeShape(LEGACY),
        connections: config.connections,
        amount: rest,
      });
      if (run.failed > 0) throw new Error(`${run.failed} initialize requests failed`);
    }
    const outcomes: Record<string, number> = {};
    const calls = sleepCalls(server.mcpUrl, ids, outcomes);
    const stats = () => getJson<{ inFlight: number; sessions: number }>(`${server.sideUrl!}/stats`);
    await until(
      async () => (await stats()).inFlight >= ids.length,
      'every call in flight',
      5_000,
      25,
    );
    const { sessions, inFlight } = await stats();
    const sent = performance.now();
    process.kill(server.pid, 'SIGTERM');
    const exit = await server.exited;
    const exitMs = performance.now() - sent;
    await Promise.all(calls);
    return {
      sessions,
      inFlight,
      /** SIGTERM → process exit. */
      exitMs,
      exitCode: exit.code,
      exitSignal: exit.signal,
      /** How the in-flight calls ended: status code (or 'reset') → count. */
      callOutcomes: outcomes,
    };
  });
}

export type ShutdownRow = Awaited<ReturnType<typeof runShutdownRounds>>[number];

export function runShutdownRounds(
  targets: readonly ProbeTarget[],
  config: Config,
  log: (line: string) => void,
) {
  return measureRows(targets, config.rounds, log, {
    name: (target) => `shutdown ${target.id}:`,
    once: (target) => runShutdown(target.spec, config),
    describe: (s) =>
      `${s.exitMs.toFixed(1)} ms to exit (code ${s.exitCode})  (load ${s.load1.toFixed(2)})`,
    row: (_target, samples) => ({
      // Sessions and calls in flight (the last round's).
      sessions: samples.at(-1)?.sessions ?? 0,
      inFlight: samples.at(-1)?.inFlight ?? 0,
      exitMs: spread(samples.map((s) => s.exitMs)),
      exitCodes: samples.map((s) => s.exitCode),
      callOutcomes: addAll(samples, (s) => s.callOutcomes),
    }),
  });
}
