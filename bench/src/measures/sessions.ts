/**
 * Idle legacy sessions: `initialize` requests/s while creating `config.sessions` sessions with
 * autocannon (each request opens one), and the memory they hold: RSS and heapUsed after a forced
 * GC (the target runs with --expose-gc), before and after, divided by the count. A fresh process
 * per target; 2,000 sessions are created first as a warm-up and belong to the baseline.
 */
import type { Config } from '../config.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { initializeShape } from '../lib/mcp.ts';
import { startTarget } from '../lib/spawn.ts';
import type { SessionTarget } from '../targets.ts';

const WARM_UP = 2000;

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
      await load({ ...common, amount: WARM_UP });
      const before = await getJson<Memory>(`${server.sideUrl}/memory?gc=1`);
      const run = await load({ ...common, amount: config.sessions });
      const after = await getJson<Memory>(`${server.sideUrl}/memory?gc=1`);
      const serverStats = await getJson<unknown>(`${server.sideUrl}/stats`);
      const mib = (bytes: number) => bytes / 2 ** 20;
      const row: SessionRow = {
        id: target.id,
        label: target.label,
        sessions: run.ok,
        initPerS: run.rps,
        p50Ms: run.p50,
        p99Ms: run.p99,
        failed: run.failed,
        rssBytesPerSession: (after.rss - before.rss) / Math.max(1, run.ok),
        heapBytesPerSession: (after.heapUsed - before.heapUsed) / Math.max(1, run.ok),
        rssBeforeMiB: mib(before.rss),
        rssAfterMiB: mib(after.rss),
        heapBeforeMiB: mib(before.heapUsed),
        heapAfterMiB: mib(after.heapUsed),
        serverStats,
      };
      if (run.failed > 0) row.error = `${run.failed} initialize requests failed`;
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
