/**
 * tools/call echo under load: each target process started alone, each scenario checked once,
 * warmed up, then measured with autocannon; ratios against the bare handler of the same runtime.
 */
import type { Config } from '../config.ts';
import { selected } from '../config.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { checkEcho, echoCall, openSession } from '../lib/mcp.ts';
import { startTarget } from '../lib/spawn.ts';
import type { Library, ProcessTarget } from '../targets.ts';

export interface ThroughputRow {
  id: string;
  label: string;
  runtime: string;
  library: Library;
  era: string;
  session: boolean;
  /** How the server answered the call: a JSON body or an SSE stream. */
  answer: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  /** rps / rps of the bare handler on the same runtime, measured in this run. */
  ratioToBare: number | null;
  /** Server RSS after the run (MiB). */
  rssMiB: number;
  error?: string;
}

export async function runThroughput(
  targets: ProcessTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  for (const target of targets) {
    const scenarios = target.scenarios.filter((s) => selected(s.id, target.runtime));
    if (scenarios.length === 0) continue;
    const server = await startTarget(target.spec);
    try {
      for (const scenario of scenarios) {
        const base = { ...scenario, runtime: target.runtime };
        try {
          const sessionId = scenario.session
            ? await openSession(server.mcpUrl, scenario.version)
            : undefined;
          if (scenario.session && !sessionId) throw new Error('no Mcp-Session-Id');
          const shape = echoCall(scenario.era, scenario.version, sessionId);
          const answer = await checkEcho(server.mcpUrl, shape);
          const common = { url: server.mcpUrl, shape, connections: config.connections };
          if (config.warmup > 0) await load({ ...common, duration: config.warmup });
          const result = await load({ ...common, duration: config.duration });
          const memory = await getJson<Memory>(`${server.sideUrl}/memory`);
          const row: ThroughputRow = {
            ...base,
            answer,
            rps: result.rps,
            p50Ms: result.p50,
            p99Ms: result.p99,
            ok: result.ok,
            failed: result.failed,
            statuses: result.statuses,
            ratioToBare: null,
            rssMiB: memory.rss / 2 ** 20,
          };
          rows.push(row);
          log(
            `${scenario.id.padEnd(34)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms${result.failed ? `  FAILED ${result.failed}` : ''}`,
          );
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log(`${scenario.id}: ${message}`);
          rows.push({
            ...base,
            answer: '',
            rps: 0,
            p50Ms: 0,
            p99Ms: 0,
            ok: 0,
            failed: 0,
            statuses: {},
            ratioToBare: null,
            rssMiB: 0,
            error: message,
          });
        }
      }
    } finally {
      await server.stop();
    }
  }
  for (const row of rows) {
    const bare = rows.find((r) => r.runtime === row.runtime && r.library === 'bare');
    row.ratioToBare = bare && bare.rps > 0 && !row.error ? row.rps / bare.rps : null;
  }
  return rows;
}
