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
import { pairedRatios, roundMedians, type Spread, spread } from '../lib/stats.ts';
import { groupCpuSeconds, groupRssBytes, workerdCpuSeconds } from '../lib/system.ts';
import type { Library, ThroughputTarget } from '../targets.ts';
import {
  type Measured,
  measureRows,
  ratiosToBaselines,
  type Stamp,
  spreadsOf,
  sum,
  withTarget,
} from './measure.ts';

/** One round of one target. */
interface ThroughputFigures {
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

export type ThroughputSample = ThroughputFigures & Stamp;

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

function measureOnce(target: ThroughputTarget, config: Config): Promise<ThroughputFigures> {
  return withTarget(target.spec, async (server) => {
    const run = target.driver
      ? await target.driver.start(server)
      : await echoRun(target, server.mcpUrl, server.headers);
    const figures = target.perCall ?? [];
    const { duration, warmup, connections } = config;
    if (warmup > 0) await run.load({ duration: warmup, connections });
    const countersBefore = figures.length > 0 ? await readCounters(server) : {};
    const port = Number(new URL(server.url).port);
    const workerd = target.runtime === 'workerd';
    const cpu = () => [
      groupCpuSeconds(server.pid),
      workerd ? workerdCpuSeconds(server.pid, port) : null,
    ];
    const [groupBefore, isolateBefore] = cpu();
    const result = await run.load({ duration, connections });
    const [groupAfter, isolateAfter] = cpu();
    const perRequest = (before: number | null | undefined, after: number | null | undefined) =>
      typeof before === 'number' && typeof after === 'number' && result.ok > 0
        ? ((after - before) * 1e6) / result.ok
        : null;
    const after = figures.length > 0 ? await readCounters(server, 200) : {};
    let rss = groupRssBytes(server.pid);
    if (rss === null && server.sideUrl)
      rss = (await getJson<Memory>(`${server.sideUrl}/memory`)).rss;
    return {
      rps: result.rps,
      p50Ms: result.p50,
      p99Ms: result.p99,
      ok: result.ok,
      failed: result.failed,
      statuses: result.statuses,
      cpuUsPerRequest: workerd
        ? perRequest(isolateBefore, isolateAfter)
        : perRequest(groupBefore, groupAfter),
      ...(workerd ? { groupCpuUsPerRequest: perRequest(groupBefore, groupAfter) } : {}),
      rssMiB: rss === null ? null : rss / 2 ** 20,
      answer: run.answer,
      ...(figures.length > 0
        ? { perCall: perCallOf(figures, countersBefore, after, result.ok, result.perCall) }
        : {}),
    };
  });
}

export async function runThroughput(
  targets: readonly ThroughputTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<ThroughputRow[]> {
  const rows = await measureRows(
    targets,
    config.rounds,
    log,
    {
      name: (target) => target.id.padEnd(36),
      once: (target) => measureOnce(target, config),
      describe: (sample) =>
        `${sample.rps.toFixed(0).padStart(7)} req/s  p99 ${sample.p99Ms} ms` +
        `${sample.cpuUsPerRequest === null ? '' : `  ${sample.cpuUsPerRequest.toFixed(1)} µs CPU/req`}` +
        `${sample.failed ? `  FAILED ${sample.failed}` : ''}  (load ${sample.load1.toFixed(2)})`,
    },
    (target, samples) => {
      const perCall = target.perCall?.map(({ name }) => [
        name,
        spread(samples.map((s) => s.perCall?.[name])),
      ]);
      return {
        label: target.label,
        runtime: target.runtime,
        library: target.library,
        era: target.era,
        session: target.session,
        baseline: target.baseline ?? null,
        answer: samples[0]?.answer ?? '',
        ...spreadsOf(samples, ['rps', 'p50Ms', 'p99Ms', 'cpuUsPerRequest', 'rssMiB']),
        ratio: null,
        cpuRatio: null as Spread | null,
        ...(perCall ? { perCall: Object.fromEntries(perCall) } : {}),
        failed: sum(samples, (s) => s.failed),
      };
    },
  );
  ratiosToBaselines(rows, (s) => s.rps);
  // The same per round for CPU per request, where both were read.
  for (const row of rows) {
    const base = rows.find((r) => r.id === row.baseline);
    if (base) row.cpuRatio = spread(pairedRatios(cpuByRound(row), cpuByRound(base)));
  }
  return rows;
}

/** The median CPU time per request of each round (rounds whose CPU was read). */
export function cpuByRound(row: Pick<ThroughputRow, 'samples'>): Map<number, number> {
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
  const echo = echoCall(target.era, target.version, sessionId);
  const shape = { ...echo, headers: { ...echo.headers, ...headers } };
  return {
    answer: await checkEcho(url, shape),
    load: (options) => load({ url, shape, ...options }),
  };
}
