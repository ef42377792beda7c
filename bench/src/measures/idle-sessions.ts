/**
 * A million idle legacy sessions next to a few active ones (issue 25, item 3), in one process and
 * one round (it takes minutes):
 *
 * 1. alone: `ACTIVE` sessions send legacy `tools/call echo`, open-loop, `ACTIVE_RATE` calls/s
 *    in all, for `warmup` + `duration` s; the latencies of the last `duration` s are kept;
 * 2. `idleSessions` more are opened (autocannon, one `initialize` each) and left idle; RSS and
 *    heap are read after a forced GC;
 * 3. with them: the active sessions' calls again, as in 1;
 * 4. none may have been reaped or evicted by then (else the idle timeout was too short, and the
 *    measure fails saying so);
 * 5. the sweep: the active calls go on while the server's own sampler (entries/expiry-lag.ts)
 *    notes how late its 1 ms timer fires in the turns the sweep ends sessions in, until every
 *    idle session is reaped; then RSS after GC again.
 */
import type { Agent } from 'node:http';
import type { Config } from '../config.ts';
import type { ExpiryLag } from '../entries/expiry-lag.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson, sleep } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { echoCall, initializeShape, openSession } from '../lib/mcp.ts';
import { boundAgent, type OpenLoopResult, openLoop } from '../lib/open-loop.ts';
import { type RunningTarget, startTarget } from '../lib/spawn.ts';
import { percentile } from '../lib/stats.ts';
import type { IdleSessionTarget } from '../targets.ts';
import { type Measured, measureRounds, type Stamp, stamp } from './measure.ts';

/** Active sessions and their calls per second in all (a steady load far below saturation). */
const ACTIVE = 4;
const ACTIVE_RATE = 1_000;
const MiB = 2 ** 20;

/** The active sessions' calls over one phase. */
export interface ActivePhase {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface IdleSessionSample extends Stamp {
  sessions: number;
  idleTimeoutS: number;
  /** `initialize` per second while the idle sessions were opened. */
  openPerS: number;
  rssBeforeMiB: number;
  rssWithMiB: number;
  heapWithMiB: number;
  /** RSS growth per idle session, after GC. */
  rssBytesPerSession: number;
  rssAfterSweepMiB: number;
  alone: ActivePhase;
  with: ActivePhase;
  duringSweep: ActivePhase;
  sweep: ExpiryLag & { seconds: number };
}

export interface IdleSessionRow extends Measured<IdleSessionSample> {
  id: string;
  label: string;
}

interface Stats {
  sessions: number;
  reaped: number;
  evicted: number;
}

/** The active sessions' open loops, started together; `stop` merges their answers. */
function activeCalls(
  server: RunningTarget,
  ids: string[],
  version: string,
  agent: Agent,
  from: number,
) {
  const loops = ids.map((id) =>
    openLoop(
      {
        url: server.mcpUrl,
        shape: echoCall('legacy', version, id),
        rate: ACTIVE_RATE / ids.length,
        firstId: from,
      },
      agent,
    ),
  );
  return {
    async stop(): Promise<ActivePhase> {
      const runs: OpenLoopResult[] = await Promise.all(loops.map((loop) => loop.stop()));
      const latencies = runs.flatMap((run) => run.latenciesMs).sort((a, b) => a - b);
      const errors = runs.reduce((sum, run) => sum + run.errors, 0);
      return {
        calls: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        errors,
      };
    },
  };
}

async function measureOnce(
  target: IdleSessionTarget,
  config: Config,
  round: number,
  position: number,
): Promise<IdleSessionSample> {
  const at = stamp(round, position);
  const count = config.idleSessions;
  const idleMs = config.idleTimeoutS * 1000;
  const server = await startTarget({
    ...target.spec,
    env: { ...target.spec.env, MAX_SESSIONS: String(count + 100), SESSION_IDLE_MS: String(idleMs) },
  });
  const agent = boundAgent('127.0.0.1', 4 * ACTIVE);
  const side = server.sideUrl!;
  const memory = () => getJson<Memory>(`${side}/memory?gc=1`);
  const stats = () => getJson<Stats>(`${side}/stats`);
  const active: string[] = [];
  let ids = 1;
  /** Warm-up, then the measured seconds (a sleep here is the length of the load, not a wait). */
  const phase = async (): Promise<ActivePhase> => {
    const warm = activeCalls(server, active, target.version, agent, ids);
    await sleep(config.warmup * 1000);
    await warm.stop();
    ids += 10_000_000;
    const run = activeCalls(server, active, target.version, agent, ids);
    await sleep(config.duration * 1000);
    ids += 10_000_000;
    return run.stop();
  };
  try {
    for (let i = 0; i < ACTIVE; i++) {
      const id = await openSession(server.mcpUrl, target.version);
      if (!id) throw new Error('initialize gave no session id');
      active.push(id);
    }
    const alone = await phase();
    const before = await memory();
    const opened = await load({
      url: server.mcpUrl,
      shape: initializeShape(target.version),
      connections: config.connections,
      amount: count,
    });
    if (opened.failed > 0 || opened.ok !== count)
      throw new Error(`${opened.failed} of ${count} initialize requests failed`);
    const held = await memory();
    const together = await phase();
    const now = await stats();
    if (now.reaped > 0 || now.evicted > 0 || now.sessions < count + ACTIVE) {
      throw new Error(
        `${now.reaped} sessions reaped and ${now.evicted} evicted before the sweep: raise BENCH_IDLE_TIMEOUT above ${config.idleTimeoutS} s`,
      );
    }
    await getJson(`${side}/lag/start`);
    const started = performance.now();
    const during = activeCalls(server, active, target.version, agent, ids);
    // The sweep runs every idle/10 and reaps between idle and idle × 1.1 after the last use.
    const deadline = started + idleMs * 1.2 + 60_000;
    while ((await stats()).reaped < count) {
      if (performance.now() > deadline)
        throw new Error(
          `the sweep had not reaped ${count} sessions in ${((deadline - started) / 1000).toFixed(0)} s`,
        );
      await sleep(500);
    }
    const seconds = (performance.now() - started) / 1000;
    const lag = await getJson<ExpiryLag>(`${side}/lag/stop`);
    const duringSweep = await during.stop();
    const after = await memory();
    for (const [name, run] of [
      ['alone', alone],
      ['with', together],
      ['during the sweep', duringSweep],
    ] as const) {
      if (run.errors > 0)
        throw new Error(`${run.errors} of the active sessions' calls failed ${name}`);
    }
    return {
      ...at,
      sessions: count,
      idleTimeoutS: config.idleTimeoutS,
      openPerS: opened.rps,
      rssBeforeMiB: before.rss / MiB,
      rssWithMiB: held.rss / MiB,
      heapWithMiB: held.heapUsed / MiB,
      rssBytesPerSession: (held.rss - before.rss) / count,
      rssAfterSweepMiB: after.rss / MiB,
      alone,
      with: together,
      duringSweep,
      sweep: { ...lag, seconds },
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

export async function runIdleSessions(
  targets: readonly IdleSessionTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<IdleSessionRow[]> {
  const measured = await measureRounds(
    targets,
    1,
    log,
    (target) => target.id.padEnd(22),
    (target, round, position) => measureOnce(target, config, round, position),
    (s) =>
      `${s.sessions} idle: ${s.rssWithMiB.toFixed(0)} MiB RSS (${s.rssBytesPerSession.toFixed(0)} B each), ` +
      `sweep lag p99 ${s.sweep.p99Ms.toFixed(2)} ms over ${s.sweep.ticks} ticks in ${s.sweep.seconds.toFixed(0)} s, ` +
      `active p99 ${s.alone.p99Ms.toFixed(2)} → ${s.with.p99Ms.toFixed(2)} ms (${s.duringSweep.p99Ms.toFixed(2)} during the sweep)  (load ${s.load1.toFixed(2)})`,
  );
  return targets.map((target) => ({
    id: target.id,
    label: target.label,
    ...measured.get(target)!,
  }));
}
