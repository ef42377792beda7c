/**
 * A million idle legacy sessions next to a few active ones, in one process and one round: the
 * active calls alone, the idle sessions opened and left to sit (`idleDwell`), the active calls
 * with them (then RSS after GC), then during the sweep that reaps them, timed by the server's own
 * 1 ms timer (entries/expiry-lag.ts).
 * README.md, Method.
 */
import type { Agent } from 'node:http';
import { sleep, until } from '@edge-mcp/test-kit';
import type { Config } from '../config.ts';
import type { ExpiryLag } from '../entries/expiry-lag.ts';
import type { Memory } from '../entries/side-channel.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { echoCall, initializeShape, openSession } from '../lib/mcp.ts';
import { boundAgent, type OpenLoopResult, openLoop } from '../lib/open-loop.ts';
import type { RunningTarget } from '../lib/spawn.ts';
import { latencies } from '../lib/stats.ts';
import type { IdleSessionTarget } from '../targets.ts';
import { measureRows, withTarget } from './measure.ts';

/** Active sessions and their calls per second in all (a steady load far below saturation). */
const ACTIVE = 4;
const ACTIVE_RATE = 1_000;
const MiB = 2 ** 20;

interface Stats {
  sessions: number;
  reaped: number;
  evicted: number;
}

/** The active sessions' open loops, started together; `stop` merges their answers. */
function activeCalls(run: IdleRun, from: number) {
  const loops = run.active.map((id) =>
    openLoop(
      {
        url: run.server.mcpUrl,
        shape: echoCall('legacy', run.version, id),
        rate: ACTIVE_RATE / run.active.length,
        firstId: from,
      },
      run.agent,
    ),
  );
  return {
    async stop() {
      const runs: OpenLoopResult[] = await Promise.all(loops.map((loop) => loop.stop()));
      const { p50Ms, p99Ms } = latencies(runs.flatMap((r) => r.latenciesMs));
      const calls = runs.reduce((sum, r) => sum + r.latenciesMs.length, 0);
      return { calls, p50Ms, p99Ms, errors: runs.reduce((sum, r) => sum + r.errors, 0) };
    },
  };
}

/** What the phases of one run share; `nextId` goes up across them. */
interface IdleRun {
  server: RunningTarget;
  version: string;
  agent: Agent;
  active: string[];
  nextId: number;
}

const memory = (run: IdleRun) => getJson<Memory>(`${run.server.sideUrl}/memory?gc=1`);
const stats = (run: IdleRun) => getJson<Stats>(`${run.server.sideUrl}/stats`);

/** Warm-up, then the measured seconds (a sleep here is the length of the load, not a wait). */
async function phase(run: IdleRun, config: Config) {
  const warm = activeCalls(run, run.nextId);
  await sleep(config.warmup * 1000);
  await warm.stop();
  run.nextId += 10_000_000;
  const measured = activeCalls(run, run.nextId);
  await sleep(config.duration * 1000);
  run.nextId += 10_000_000;
  return measured.stop();
}

/** The sweep, with the active calls going on: until every idle session is reaped. */
async function sweep(run: IdleRun, count: number, idleMs: number) {
  await getJson(`${run.server.sideUrl}/lag/start`);
  const started = performance.now();
  const during = activeCalls(run, run.nextId);
  // The sweep runs every idle/10 and reaps between idle and idle × 1.1 after the last use.
  const reaped = async () => (await stats(run)).reaped >= count;
  await until(reaped, `the sweep to reap ${count} sessions`, idleMs * 1.2 + 60_000, 500);
  const seconds = (performance.now() - started) / 1000;
  const lag = await getJson<ExpiryLag>(`${run.server.sideUrl}/lag/stop`);
  return { sweep: { ...lag, seconds }, duringSweep: await during.stop() };
}

async function measureIdle(run: IdleRun, config: Config) {
  const count = config.idleSessions;
  for (let i = 0; i < ACTIVE; i++) {
    const id = await openSession(run.server.mcpUrl, run.version);
    run.active.push(id);
  }
  const alone = await phase(run, config);
  const before = await memory(run);
  const opened = await load({
    url: run.server.mcpUrl,
    shape: initializeShape(run.version),
    connections: config.connections,
    amount: count,
  });
  if (opened.failed > 0 || opened.ok !== count)
    throw new Error(`${opened.failed} of ${count} initialize requests failed`);
  // They sit there first (the dwell is part of the scenario, not a wait for something), and RSS
  // is read after the active calls: its forced GCs of the whole heap would otherwise be in them.
  await sleep(config.idleDwell * 1000);
  const together = await phase(run, config);
  const held = await memory(run);
  const now = await stats(run);
  if (now.reaped > 0 || now.evicted > 0 || now.sessions < count + ACTIVE) {
    throw new Error(
      `${now.reaped} sessions reaped and ${now.evicted} evicted before the sweep: raise BENCH_IDLE_TIMEOUT above ${config.idleTimeoutS} s`,
    );
  }
  const { sweep: swept, duringSweep } = await sweep(run, count, config.idleTimeoutS * 1000);
  const after = await memory(run);
  for (const [name, phase] of Object.entries({
    alone,
    with: together,
    'during the sweep': duringSweep,
  })) {
    if (phase.errors > 0)
      throw new Error(`${phase.errors} of the active sessions' calls failed ${name}`);
  }
  return {
    sessions: count,
    idleTimeoutS: config.idleTimeoutS,
    idleDwellS: config.idleDwell,
    // `initialize` per second while the idle sessions were opened.
    openPerS: opened.rps,
    rssBeforeMiB: before.rss / MiB,
    rssWithMiB: held.rss / MiB,
    heapWithMiB: held.heapUsed / MiB,
    // RSS growth per idle session, after GC.
    rssBytesPerSession: (held.rss - before.rss) / count,
    rssAfterSweepMiB: after.rss / MiB,
    alone,
    with: together,
    duringSweep,
    sweep: swept,
  };
}

export type IdleSessionRow = Awaited<ReturnType<typeof runIdleSessions>>[number];

export async function runIdleSessions(
  targets: readonly IdleSessionTarget[],
  config: Config,
  log: (line: string) => void,
) {
  const env = {
    MAX_SESSIONS: String(config.idleSessions + 100),
    SESSION_IDLE_MS: String(config.idleTimeoutS * 1000),
  };
  return measureRows(targets, 1, log, {
    name: (target) => target.id.padEnd(22),
    once: (target) =>
      withTarget({ ...target.spec, env: { ...target.spec.env, ...env } }, async (server) => {
        const agent = boundAgent('127.0.0.1', 4 * ACTIVE);
        const run = { server, version: target.version, agent, active: [], nextId: 1 };
        try {
          return await measureIdle(run, config);
        } finally {
          agent.destroy();
        }
      }),
    describe: (s) =>
      `${s.sessions} idle: ${s.rssWithMiB.toFixed(0)} MiB RSS (${s.rssBytesPerSession.toFixed(0)} B each), ` +
      `sweep lag p99 ${s.sweep.p99Ms.toFixed(2)} ms over ${s.sweep.ticks} ticks in ${s.sweep.seconds.toFixed(0)} s, ` +
      `active p99 ${s.alone.p99Ms.toFixed(2)} → ${s.with.p99Ms.toFixed(2)} ms (${s.duringSweep.p99Ms.toFixed(2)} during the sweep)  (load ${s.load1.toFixed(2)})`,
    row: (target) => ({ label: target.label }),
  });
}
