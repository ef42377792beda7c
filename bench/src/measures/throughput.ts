/**
 * tools/call echo under load, in interleaved rounds: every round starts every target in a fresh
 * process (the order turned from round to round), checks one call, warms it up with the same
 * load, then measures with autocannon. Ratios to a target's baseline are taken per round (both
 * measured in that round) and reported as their median and min–max.
 */
import type { Config } from '../config.ts';
import type { Memory } from '../entries/side-channel.ts';
import { type DriverRun, perCallOf, readCounters } from '../lib/driver.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { checkEcho, echoCall, openSession } from '../lib/mcp.ts';
import { startTarget } from '../lib/spawn.ts';
import { pairedRatios, roundMedians, type Spread, spread } from '../lib/stats.ts';
import { groupCpuSeconds, groupRssBytes, workerdCpuSeconds } from '../lib/system.ts';
import type { Library, ThroughputTarget } from '../targets.ts';
import {
  type Measured,
  measureRounds,
  ratiosToBaselines,
  type Stamp,
  spreadsOf,
  stamp,
  sum,
} from './measure.ts';

/** One round of one target. */
export interface ThroughputSample extends Stamp {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  /**
   * CPU time of the server per answered request (µs), over the measured run: every process of
   * the target's group, except on workerd, where it is the workerd process running the Worker
   * and its objects (what Cloudflare bills; `wrangler dev`'s tooling is in `groupCpuUsPerRequest`).
   */
  cpuUsPerRequest: number | null;
  /** workerd: CPU of the whole `wrangler dev` group per answered request (µs). */
  groupCpuUsPerRequest?: number | null;
  /** RSS of the target's processes right after the run (MiB). */
  rssMiB: number | null;
  /** How the server answered the call: a JSON body or an SSE stream. */
  answer: string;
  /** The target's figures per answered call (`perCall` of the registry), by name. */
  perCall?: Record<string, number>;
}

export interface ThroughputRow extends Measured<ThroughputSample> {
  id: string;
  label: string;
  runtime: string;
  library: Library;
  era: string;
  session: boolean;
  baseline: string | null;
  answer: string;
  rps: Spread | null;
  /** rps / the baseline's rps, per round; null for a ceiling. */
  ratio: Spread | null;
  /** CPU per request / the baseline's, per round; null for a ceiling or without CPU figures. */
  cpuRatio: Spread | null;
  p50Ms: Spread | null;
  p99Ms: Spread | null;
  cpuUsPerRequest: Spread | null;
  rssMiB: Spread | null;
  /** The target's figures per answered call, by name (targets that declare some). */
  perCall?: Record<string, Spread | null>;
  /** Failed requests over every round. */
  failed: number;
}

async function measureOnce(
  target: ThroughputTarget,
  config: Config,
  round: number,
  position: number,
): Promise<ThroughputSample> {
  const at = stamp(round, position);
  const server = await startTarget(target.spec);
  try {
    const run = target.driver
      ? await target.driver.start(server)
      : await echoRun(target, server.mcpUrl, server.headers);
    const answer = run.answer;
    const figures = target.perCall ?? [];
    if (config.warmup > 0)
      await run.load({ duration: config.warmup, connections: config.connections });
    const countersBefore = figures.length > 0 ? await readCounters(server) : {};
    const port = Number(new URL(server.url).port);
    const workerd = target.runtime === 'workerd';
    const cpuBefore = groupCpuSeconds(server.pid);
    const isolateBefore = workerd ? workerdCpuSeconds(server.pid, port) : null;
    const result = await run.load({ duration: config.duration, connections: config.connections });
    const cpuAfter = groupCpuSeconds(server.pid);
    const isolateAfter = workerd ? workerdCpuSeconds(server.pid, port) : null;
    const perRequest = (before: number | null, after: number | null) =>
      before !== null && after !== null && result.ok > 0
        ? ((after - before) * 1e6) / result.ok
        : null;
    const perCall =
      figures.length > 0
        ? perCallOf(
            figures,
            countersBefore,
            await readCounters(server, 200),
            result.ok,
            result.perCall,
          )
        : undefined;
    let rss = groupRssBytes(server.pid);
    if (rss === null && server.sideUrl)
      rss = (await getJson<Memory>(`${server.sideUrl}/memory`)).rss;
    return {
      ...at,
      rps: result.rps,
      p50Ms: result.p50,
      p99Ms: result.p99,
      ok: result.ok,
      failed: result.failed,
      statuses: result.statuses,
      cpuUsPerRequest: workerd
        ? perRequest(isolateBefore, isolateAfter)
        : perRequest(cpuBefore, cpuAfter),
      ...(workerd ? { groupCpuUsPerRequest: perRequest(cpuBefore, cpuAfter) } : {}),
      rssMiB: rss === null ? null : rss / 2 ** 20,
      answer,
      ...(perCall ? { perCall } : {}),
    };
  } finally {
    await server.stop();
  }
}

export async function runThroughput(
  targets: readonly ThroughputTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<ThroughputRow[]> {
  const measured = await measureRounds(
    targets,
    config.rounds,
    log,
    (target) => target.id.padEnd(36),
    (target, round, position) => measureOnce(target, config, round, position),
    (sample) =>
      `${sample.rps.toFixed(0).padStart(7)} req/s  p99 ${sample.p99Ms} ms` +
      `${sample.cpuUsPerRequest === null ? '' : `  ${sample.cpuUsPerRequest.toFixed(1)} µs CPU/req`}` +
      `${sample.failed ? `  FAILED ${sample.failed}` : ''}  (load ${sample.load1.toFixed(2)})`,
  );
  const rows = targets.map((target): ThroughputRow => {
    const { samples, errors, skipped } = measured.get(target)!;
    const figures = spreadsOf(samples, ['rps', 'p50Ms', 'p99Ms', 'cpuUsPerRequest', 'rssMiB']);
    const perCall = target.perCall?.map(({ name }) => [
      name,
      spread(samples.map((s) => s.perCall?.[name])),
    ]);
    return {
      id: target.id,
      label: target.label,
      runtime: target.runtime,
      library: target.library,
      era: target.era,
      session: target.session,
      baseline: target.baseline ?? null,
      answer: samples[0]?.answer ?? '',
      samples,
      ...figures,
      ratio: null,
      cpuRatio: null,
      ...(perCall ? { perCall: Object.fromEntries(perCall) } : {}),
      failed: sum(samples, (s) => s.failed),
      errors,
      ...(skipped ? { skipped } : {}),
    };
  });
  ratiosToBaselines(rows, (s) => s.rps);
  // The same per round for CPU per request, where both were read.
  for (const row of rows) {
    const base = rows.find((r) => r.id === row.baseline);
    if (base) row.cpuRatio = spread(pairedRatios(cpuByRound(row), cpuByRound(base)));
  }
  return rows;
}

/** The median CPU time per request of each round (rounds whose CPU was read). */
export function cpuByRound(row: ThroughputRow): Map<number, number> {
  return roundMedians(
    row.samples.filter((x) => x.cpuUsPerRequest !== null),
    (x) => x.cpuUsPerRequest as number,
  );
}

/** autocannon's echo call (with the service's headers), after opening a session if it keeps one. */
async function echoRun(
  target: ThroughputTarget,
  url: string,
  headers: Record<string, string>,
): Promise<DriverRun> {
  const sessionId = target.session ? await openSession(url, target.version) : undefined;
  if (target.session && !sessionId) throw new Error('no Mcp-Session-Id');
  const echo = echoCall(target.era, target.version, sessionId);
  const shape = { ...echo, headers: { ...echo.headers, ...headers } };
  return {
    answer: await checkEcho(url, shape),
    load: (options) => load({ url, shape, ...options }),
  };
}
