/**
 * Idle legacy sessions, a fresh process per target:
 *
 * - memory: `config.sessions` sessions are created (autocannon, one `initialize` each) as a
 *   warm-up batch, then as many again; RSS and heapUsed are read after a forced GC (the target
 *   runs with --expose-gc) before and after the second batch and divided by its count. The first
 *   batch also grows the process itself once (V8's young generation, heap and allocator pages),
 *   which is not a cost per session; its figure is kept in the row as `warmUpRssBytesPerSession`.
 * - creation rate: `initialize` requests per second over a timed run (`config.warmup` s, then
 *   `config.duration` s), like the throughput measure, so a generator's start-up and a short
 *   run's ramp do not weigh on it. Every request opens a session that stays open.
 */
import type { Config } from '../config.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { initializeShape } from '../lib/mcp.ts';
import { startTarget } from '../lib/spawn.ts';
import type { SessionTarget } from '../targets.ts';

export interface SessionRow {
  id: string;
  label: string;
  sessions: number;
  initPerS: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  rssBytesPerSession: number;
  heapBytesPerSession: number;
  /** RSS growth per session over the warm-up batch (includes the process's own growth). */
  warmUpRssBytesPerSession: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
  /** What the server itself counts, when it exposes it. */
  serverStats: unknown;
  error?: string;
}

export async function runSessions(
  targets: SessionTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<SessionRow[]> {
  const rows: SessionRow[] = [];
  for (const target of targets) {
    const server = await startTarget(target.spec);
    try {
      const shape = initializeShape(target.version);
      const common = { url: server.mcpUrl, shape, connections: config.connections };
      const start = await getJson<Memory>(`${server.sideUrl}/memory?gc=1`);
      const warmUp = await load({ ...common, amount: config.sessions });
      const before = await getJson<Memory>(`${server.sideUrl}/memory?gc=1`);
      const batch = await load({ ...common, amount: config.sessions });
      const after = await getJson<Memory>(`${server.sideUrl}/memory?gc=1`);
      await load({ ...common, duration: config.warmup });
      const run = await load({ ...common, duration: config.duration });
      const serverStats = await getJson<unknown>(`${server.sideUrl}/stats`);
      const mib = (bytes: number) => bytes / 2 ** 20;
      const row: SessionRow = {
        id: target.id,
        label: target.label,
        sessions: batch.ok,
        initPerS: run.rps,
        p50Ms: run.p50,
        p99Ms: run.p99,
        failed: run.failed + warmUp.failed + batch.failed,
        rssBytesPerSession: (after.rss - before.rss) / Math.max(1, batch.ok),
        heapBytesPerSession: (after.heapUsed - before.heapUsed) / Math.max(1, batch.ok),
        warmUpRssBytesPerSession: (before.rss - start.rss) / Math.max(1, warmUp.ok),
        rssBeforeMiB: mib(before.rss),
        rssAfterMiB: mib(after.rss),
        heapBeforeMiB: mib(before.heapUsed),
        heapAfterMiB: mib(after.heapUsed),
        serverStats,
      };
      if (row.failed > 0) row.error = `${row.failed} initialize requests failed`;
      rows.push(row);
      log(
        `${target.id.padEnd(16)} ${run.rps.toFixed(0).padStart(6)} initialize/s  ` +
          `${row.heapBytesPerSession.toFixed(0)} B heap, ${row.rssBytesPerSession.toFixed(0)} B RSS per session`,
      );
    } catch (error) {
      log(`${target.id}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await server.stop();
    }
  }
  return rows;
}
