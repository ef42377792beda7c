/**
 * Idle legacy sessions: memory per session over a second batch of `initialize`s (after a
 * warm-up batch as large, whose figure is kept as `warmUpRssBytesPerSession`: README.md, Method,
 * says why), and `initialize` per second over a timed run.
 */
import type { Config } from '../config.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { initializeShape } from '../lib/mcp.ts';
import type { Spread } from '../lib/stats.ts';
import type { SessionTarget } from '../targets.ts';
import { measureRows, ratiosToBaselines, spreadsOf, sum, withTarget } from './measure.ts';

function measureOnce(target: SessionTarget, config: Config) {
  return withTarget(target.spec, async (server) => {
    const side = server.sideUrl!;
    const shape = initializeShape(target.version);
    const common = { url: server.mcpUrl, shape, connections: config.connections };
    const start = await getJson<Memory>(`${side}/memory?gc=1`);
    const warmUp = await load({ ...common, amount: config.sessions });
    const before = await getJson<Memory>(`${side}/memory?gc=1`);
    const batch = await load({ ...common, amount: config.sessions });
    const after = await getJson<Memory>(`${side}/memory?gc=1`);
    if (config.warmup > 0) await load({ ...common, duration: config.warmup });
    const run = await load({ ...common, duration: config.duration });
    const failed = run.failed + warmUp.failed + batch.failed;
    if (failed > 0) throw new Error(`${failed} initialize requests failed`);
    return {
      sessions: batch.ok,
      initPerS: run.rps,
      p50Ms: run.p50,
      p99Ms: run.p99,
      failed,
      heapBytesPerSession: (after.heapUsed - before.heapUsed) / Math.max(1, batch.ok),
      rssBytesPerSession: (after.rss - before.rss) / Math.max(1, batch.ok),
      // RSS growth per session over the warm-up batch (includes the process's own growth).
      warmUpRssBytesPerSession: (before.rss - start.rss) / Math.max(1, warmUp.ok),
      rssAfterMiB: after.rss / 2 ** 20,
      // What the server itself counts, when it exposes it.
      serverStats: await getJson<unknown>(`${side}/stats`),
    };
  });
}

export type SessionRow = Awaited<ReturnType<typeof runSessions>>[number];

export async function runSessions(
  targets: readonly SessionTarget[],
  config: Config,
  log: (line: string) => void,
) {
  const rows = await measureRows(targets, config.rounds, log, {
    name: (target) => target.id.padEnd(22),
    once: (target) => measureOnce(target, config),
    describe: (s) =>
      `${s.initPerS.toFixed(0).padStart(6)} initialize/s  ` +
      `${s.heapBytesPerSession.toFixed(0)} B heap, ${s.rssBytesPerSession.toFixed(0)} B RSS per session  (load ${s.load1.toFixed(2)})`,
    row: (target, samples) => ({
      label: target.label,
      library: target.library,
      baseline: target.baseline ?? null,
      // Sessions per measured batch (the last round's).
      sessions: samples.at(-1)?.sessions ?? 0,
      ratio: null as Spread | null,
      ...spreadsOf(samples, [
        'initPerS',
        'p99Ms',
        'heapBytesPerSession',
        'rssBytesPerSession',
        'warmUpRssBytesPerSession',
        'rssAfterMiB',
      ]),
      failed: sum(samples, (s) => s.failed),
    }),
  });
  return ratiosToBaselines(rows, (s) => s.initPerS);
}
