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
import type { RunningTarget } from '../lib/spawn.ts';
import { roundMedians, type Spread, spread } from '../lib/stats.ts';
import { groupCpuSeconds, groupRssBytes, workerdCpuSeconds } from '../lib/system.ts';
import type { ThroughputTarget } from '../targets.ts';
import {
  measureRows,
  ratiosToBaselines,
  type Stamp,
  spreadsOf,
  sum,
  withTarget,
} from './measure.ts';

async function measureOnce(target: ThroughputTarget, server: RunningTarget, config: Config) {
  const run = target.driver
    ? await target.driver.start(server)
    : await echoRun(target, server.mcpUrl, server.headers);
  const figures = target.perCall ?? [];
  const { duration, warmup, connections } = config;
  if (warmup > 0) await run.load({ duration: warmup, connections });
  const countersBefore = figures.length > 0 ? await readCounters(server) : {};
  const workerd = target.runtime === 'workerd';
  const port = Number(new URL(server.url).port);
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
  if (rss === null && server.sideUrl) rss = (await getJson<Memory>(`${server.sideUrl}/memory`)).rss;
  return {
    rps: result.rps,
    p50Ms: result.p50,
    p99Ms: result.p99,
    ok: result.ok,
    failed: result.failed,
    statuses: result.statuses,
    /**
     * The server's CPU time per answered request (µs): every process of the target's group,
     * except on workerd, where it is the workerd process running the Worker and its objects (what
     * Cloudflare bills; `wrangler dev`'s tooling is in `groupCpuUsPerRequest`).
     */
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
}

export type ThroughputSample = Awaited<ReturnType<typeof measureOnce>> & Stamp;
export type ThroughputRow = Awaited<ReturnType<typeof runThroughput>>[number];

export async function runThroughput(
  targets: readonly ThroughputTarget[],
  config: Config,
  log: (line: string) => void,
) {
  // One uncounted sample first: the run's very first one finds the load client cold and the
  // server underloaded, and its CPU per call came out twice the next ones' (node/bare 64.6 µs,
  // then 30 µs, on 2026-12-05); a goal paired with it would read that.
  const first = targets.find((target) => !target.unavailable?.());
  if (first && config.warmup > 0) {
    log(`warm-up: one uncounted sample of ${first.id}`);
    await withTarget(first.spec, (server) => measureOnce(first, server, config)).catch(() => {});
  }
  const rows = await measureRows(targets, config.rounds, log, {
    pairing: {
      // What a target's goals compare it with: measured next to it (measure.ts, `Pairing`).
      partnerOf: (target) => {
        const goal = target.goals?.[0];
        const id = goal ? (goal.against ?? target.baseline) : undefined;
        return targets.find((t) => t.id === id);
      },
      // About two samples' time: a partner measured just before the target before stays fresh.
      freshMs: 20_000,
    },
    name: (target) => target.id.padEnd(36),
    once: (target) => withTarget(target.spec, (server) => measureOnce(target, server, config)),
    describe: (sample) =>
      `${sample.rps.toFixed(0).padStart(7)} req/s  p99 ${sample.p99Ms} ms` +
      `${sample.cpuUsPerRequest === null ? '' : `  ${sample.cpuUsPerRequest.toFixed(1)} µs CPU/req`}` +
      `${sample.failed ? `  FAILED ${sample.failed}` : ''}  (load ${sample.load1.toFixed(2)})`,
    row: (target, samples) => {
      const perCall = target.perCall?.map(({ name }) => [
        name,
        spread(samples.map((s) => s.perCall?.[name])),
      ]);
      return {
        label: target.label,
        runtime: target.runtime as string,
        library: target.library,
        era: target.era,
        session: target.session,
        baseline: target.baseline ?? null,
        answer: samples[0]?.answer ?? '',
        ...spreadsOf(samples, ['rps', 'p50Ms', 'p99Ms', 'cpuUsPerRequest', 'rssMiB']),
        ratio: null as Spread | null,
        // CPU per request / the baseline's, per round (rounds whose CPU was read).
        cpuRatio: null as Spread | null,
        ...(perCall
          ? { perCall: Object.fromEntries(perCall) as Record<string, Spread | null> }
          : {}),
        failed: sum(samples, (s) => s.failed),
      };
    },
  });
  ratiosToBaselines(rows, (s) => s.rps);
  ratiosToBaselines(rows, (s) => s.cpuUsPerRequest, 'cpuRatio');
  return rows;
}

/** The median CPU time per request of each round (rounds whose CPU was read). */
export const cpuByRound = (row: { samples: ThroughputSample[] }) =>
  roundMedians(
    row.samples.filter((x) => x.cpuUsPerRequest !== null),
    (x) => x.cpuUsPerRequest as number,
  );

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
