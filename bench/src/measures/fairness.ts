/**
 * Fairness: does a principal flooding at 10× its rate limit slow another principal down? The
 * victim sends open-loop from 127.0.0.1 in this process, the attacker from 127.0.0.2 in a forked
 * one (src/lib/flood.ts); six segments a round (alone, attack, control, control, attack, alone),
 * the control flood going to a bare node:http process instead. README.md, Method, says why these
 * rates and what the control phase shows.
 */
import type { Agent } from 'node:http';
import { sleep } from '@edge-mcp/test-kit';
import type { Config } from '../config.ts';
import { type Flood, startFlood } from '../lib/flood.ts';
import { type CallShape, checkEcho, echoCall } from '../lib/mcp.ts';
import { boundAgent, openLoop } from '../lib/open-loop.ts';
import { type RunningTarget, startTarget } from '../lib/spawn.ts';
import { percentile, spread } from '../lib/stats.ts';
import { groupCpuMs } from '../lib/system.ts';
import { FAIRNESS_LIMIT, type FairnessTarget, LEGACY } from '../targets.ts';
import { addAll, measureRows, type Stamp, sum } from './measure.ts';

type PhaseName = 'alone' | 'attack' | 'control';
/** The victim's calls of one phase (its two segments) in one round. */
export type FairnessPhase = ReturnType<typeof phaseOf>;

/** Half the victim's limit: even a client stall of a second, caught up at once, fits the burst. */
const VICTIM_RATE = FAIRNESS_LIMIT.perSecond / 2;
const ATTACKER_RATE = FAIRNESS_LIMIT.perSecond * 10;
const VICTIM_ADDRESS = '127.0.0.1';
const ATTACKER_ADDRESS = '127.0.0.2';
/** Enough sockets that neither client waits for one in a normal run (a few are busy at once). */
const VICTIM_SOCKETS = 8;
const ATTACKER_SOCKETS = 32;
const ORDER: PhaseName[] = ['alone', 'attack', 'control', 'control', 'attack', 'alone'];

const answered = (statuses: Record<string, number>) =>
  Object.entries(statuses).reduce((sum, [key, n]) => (/^\d+$/.test(key) ? sum + n : sum), 0);
const delta = (before: number | null, after: number | null) =>
  before !== null && after !== null ? after - before : null;

/** What one segment of a phase saw: the victim's calls, the server's CPU and the flood. */
interface Segment {
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  maxLagMs: number;
  serverCpuMs: number | null;
  serverRequests: number;
  flood?: { sent: number; statuses: Record<string, number>; cpuMs: number | null };
  wallMs: number;
}

/** Sums up a phase's segments: percentiles over all their calls, CPU over all their requests. */
function phaseOf(segments: Segment[]) {
  const latencies = segments.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const total = (pick: (s: Segment) => number | null | undefined) =>
    segments.every((s) => typeof pick(s) === 'number')
      ? segments.reduce((sum, s) => sum + pick(s)!, 0)
      : null;
  const cpuMs = total((s) => s.serverCpuMs);
  const requests = total((s) => s.serverRequests) ?? 0;
  const flooded = segments.flatMap((s) => (s.flood ? [s.flood] : []));
  const floodCpuMs = total((s) => s.flood?.cpuMs);
  return {
    calls: latencies.length,
    // Victim calls not answered 200 with the echo (429s included): 0 when the limit is fair.
    errors: segments.reduce((sum, s) => sum + s.errors, 0),
    statuses: addAll(segments, (s) => s.statuses),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    // The victim's latest send against its schedule (its own event loop's lateness), and the
    // edge-mcp server's CPU time (every thread, schedstat) per request it answered.
    maxLagMs: Math.max(...segments.map((s) => s.maxLagMs)),
    serverCpuUsPerRequest: cpuMs !== null && requests > 0 ? (cpuMs * 1000) / requests : null,
    ...(flooded.length > 0
      ? {
          // The flood's requests and answers by status, and the cores its client process used.
          flood: {
            sent: flooded.reduce((sum, f) => sum + f.sent, 0),
            statuses: addAll(flooded, (f) => f.statuses),
          },
          floodCores: floodCpuMs === null ? null : floodCpuMs / total((s) => s.wallMs)!,
        }
      : {}),
  };
}

/** What the segments of one round share; `nextId` goes up across them. */
interface Round {
  server: RunningTarget;
  shape: CallShape;
  victimAgent: Agent;
  floods: Record<PhaseName, Flood | undefined>;
  nextId: number;
}

/** The victim's calls for `seconds`, with the phase's flood (if any) running the whole time. */
async function runSegment(round: Round, phase: PhaseName, seconds: number): Promise<Segment> {
  const { server } = round;
  const other = round.floods[phase];
  const cpuBefore = groupCpuMs(server.pid);
  const floodBefore = other?.cpuMs() ?? null;
  const started = performance.now();
  // The flood starts before the victim's segment and stops after it: every counted victim
  // call ran with it.
  await other?.start();
  const run = openLoop(
    {
      url: server.mcpUrl,
      shape: round.shape,
      rate: VICTIM_RATE,
      check: (body) => body.includes('hello'),
      firstId: round.nextId,
    },
    round.victimAgent,
  );
  await sleep(seconds * 1000);
  const victim = await run.stop();
  round.nextId += victim.sent;
  const flooded = await other?.stop();
  const cpuAfter = groupCpuMs(server.pid);
  return {
    latencies: victim.latenciesMs,
    statuses: victim.statuses,
    errors: victim.errors,
    maxLagMs: victim.maxLagMs,
    serverCpuMs: delta(cpuBefore, cpuAfter),
    // The edge-mcp server answered the flood only in the attack phase.
    serverRequests:
      answered(victim.statuses) + (phase === 'attack' ? answered(flooded!.statuses) : 0),
    ...(flooded && other
      ? { flood: { ...flooded, cpuMs: delta(floodBefore, other.cpuMs()) } }
      : {}),
    wallMs: performance.now() - started,
  };
}

async function measureRound(target: FairnessTarget, config: Config) {
  const opened: { stop(): Promise<void> }[] = [];
  const victimAgent = boundAgent(VICTIM_ADDRESS, VICTIM_SOCKETS);
  const flood = async (to: RunningTarget) => {
    const started = await startFlood({
      url: to.mcpUrl,
      rate: ATTACKER_RATE,
      localAddress: ATTACKER_ADDRESS,
      sockets: ATTACKER_SOCKETS,
    });
    opened.push({ stop: started.exit });
    return started;
  };
  try {
    const server = await startTarget(target.spec);
    opened.push(server);
    const bare = await startTarget(target.control);
    opened.push(bare);
    const shape = echoCall('modern', LEGACY);
    await checkEcho(server.mcpUrl, shape);
    const round: Round = {
      server,
      shape,
      victimAgent,
      floods: { alone: undefined, attack: await flood(server), control: await flood(bare) },
      nextId: 1,
    };
    if (config.warmup > 0) {
      await runSegment(round, 'attack', config.warmup);
      await runSegment(round, 'control', config.warmup);
    }
    const segments: Record<PhaseName, Segment[]> = { alone: [], attack: [], control: [] };
    for (const phase of ORDER)
      segments[phase].push(await runSegment(round, phase, config.duration));
    const alone = phaseOf(segments.alone);
    const attack = phaseOf(segments.attack);
    const control = phaseOf(segments.control);
    return {
      alone,
      attack,
      control,
      // p99 under attack / p99 alone (the goal's figure); with the flood sent to another
      // process / alone (the shared cores' share).
      ratio: attack.p99Ms / alone.p99Ms,
      controlRatio: control.p99Ms / alone.p99Ms,
    };
  } finally {
    victimAgent.destroy();
    for (const started of opened.reverse()) await started.stop();
  }
}

type FairnessSample = Awaited<ReturnType<typeof measureRound>> & Stamp;
export type FairnessRow = Awaited<ReturnType<typeof runFairness>>[number];
export type PhaseSpread = ReturnType<typeof phaseSpread>;

/** One phase over the rounds: calls and errors summed, the rest as spreads. */
function phaseSpread(samples: readonly FairnessSample[], name: PhaseName) {
  const of = (pick: (phase: FairnessPhase) => number | null | undefined) =>
    spread(samples.map((s) => pick(s[name])));
  return {
    calls: sum(samples, (s) => s[name].calls),
    errors: sum(samples, (s) => s[name].errors),
    p50Ms: of((p) => p.p50Ms),
    p99Ms: of((p) => p.p99Ms),
    maxLagMs: of((p) => p.maxLagMs),
    serverCpuUsPerRequest: of((p) => p.serverCpuUsPerRequest),
    floodCores: of((p) => p.floodCores),
  };
}

export function runFairness(
  targets: readonly FairnessTarget[],
  config: Config,
  log: (line: string) => void,
) {
  const ms = (phase: FairnessPhase) => `${phase.p99Ms.toFixed(2)} ms`;
  return measureRows(targets, config.rounds, log, {
    name: (target) => `fairness ${target.id}:`,
    once: (target) => measureRound(target, config),
    describe: ({ alone, attack, control, ...s }) =>
      `victim p99 ${ms(alone)} alone, ${ms(attack)} under attack (${s.ratio.toFixed(2)}×), ${ms(control)} with the flood elsewhere (${s.controlRatio.toFixed(2)}×); attacker ${attack.flood?.statuses['429'] ?? 0}× 429 of ${attack.flood?.sent ?? 0}; victim errors ${alone.errors + attack.errors + control.errors}  (load ${s.load1.toFixed(2)})`,
    row: (_target, samples) => {
      const of = (pick: (s: FairnessSample) => number) => spread(samples.map(pick));
      const phases = {
        alone: phaseSpread(samples, 'alone'),
        attack: phaseSpread(samples, 'attack'),
        control: phaseSpread(samples, 'control'),
      };
      return {
        limit: { ...FAIRNESS_LIMIT } as { perSecond: number; burst: number },
        victimRate: VICTIM_RATE,
        attackerRate: ATTACKER_RATE,
        // Seconds per segment (two segments per phase and round).
        segmentSeconds: config.duration,
        phases,
        ratio: of((s) => s.ratio),
        controlRatio: of((s) => s.controlRatio),
        victimErrors: phases.alone.errors + phases.attack.errors + phases.control.errors,
        attackerStatuses: addAll(samples, (s) => s.attack.flood?.statuses ?? {}),
      };
    },
  });
}
