/** Knobs of `pnpm bench` (see README.md): command-line flags and `BENCH_*` variables. */
import { join } from 'node:path';
import { RESULTS_DIR } from './lib/paths.ts';

const argv = process.argv.slice(2);
/**
 * `--quick` (or BENCH_QUICK=1): a smoke run that checks the bench still runs — one short round,
 * small counts — not the figures.
 */
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';

function num(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a number`);
  return parsed;
}

function list(name: string): string[] | undefined {
  const value = process.env[name];
  return value ? value.split(',').map((item) => item.trim()) : undefined;
}

export const MEASURES = [
  'throughput',
  'startup',
  'sessions',
  'idle-sessions',
  'disconnect',
  'shutdown',
  'cross-cancel',
  'proxy-sse',
  'fairness',
  'cloudflare',
] as const;
export type Measure = (typeof MEASURES)[number];

const measures = list('BENCH_MEASURES') as Measure[] | undefined;
for (const measure of measures ?? []) {
  if (!MEASURES.includes(measure)) throw new Error(`unknown measure ${measure} in BENCH_MEASURES`);
}
const targets = list('BENCH_TARGETS');
const runtimes = list('BENCH_RUNTIMES');
/**
 * A quick run, or one with any knob but BENCH_OUT set, writes partial.json and leaves the README
 * alone.
 */
const partial =
  quick ||
  Object.keys(process.env).some(
    (name) => name.startsWith('BENCH_') && name !== 'BENCH_OUT' && process.env[name] !== '',
  );

const idleSessions = Math.round(num('BENCH_IDLE_SESSIONS', quick ? 100_000 : 1_000_000));
/**
 * Seconds the idle sessions sit there, without load, before the active calls run with them: the
 * half minute after a million `initialize` calls is still their aftermath (the active p99 fell
 * from 15.5 to 5.8 ms over it in one run), not sessions sitting idle.
 */
const idleDwell = num('BENCH_IDLE_DWELL', quick ? 2 : 30);

export const config = {
  quick,
  /** Interleaved rounds: every target is measured once per round, in a fresh process. */
  rounds: Math.max(1, Math.round(num('BENCH_ROUNDS', quick ? 1 : 3))),
  /**
   * Seconds of load per throughput target, after `warmup` seconds of the same load; also the
   * seconds of each of the fairness measure's six segments per round.
   */
  duration: num('BENCH_DURATION', quick ? 1 : 5),
  warmup: num('BENCH_WARMUP', quick ? 0.5 : 2),
  connections: num('BENCH_CONNECTIONS', quick ? 10 : 50),
  /** Idle sessions created per batch for the memory and session-creation measure. */
  sessions: num('BENCH_SESSIONS', quick ? 200 : 10_000),
  /** Idle legacy sessions of the idle-sessions measure (one round: it takes minutes). */
  idleSessions,
  idleDwell,
  /**
   * Their idle timeout in seconds: it must outlast opening them all and the phases after, or the
   * sweep starts early (the measure then fails, saying so). By default 30 s, the dwell, and a
   * second per 4,000 sessions (opening them runs at 4,000–12,000 a second on 2 cores).
   */
  idleTimeoutS: num('BENCH_IDLE_TIMEOUT', 30 + idleDwell + Math.ceil(idleSessions / 4_000)),
  drops: num('BENCH_DROPS', quick ? 10 : 200),
  shutdownSessions: num('BENCH_SHUTDOWN_SESSIONS', quick ? 200 : 10_000),
  inFlight: num('BENCH_INFLIGHT', quick ? 10 : 100),
  /** Cross-instance cancels per round (after 10 uncounted ones). */
  cancels: Math.max(1, Math.round(num('BENCH_CANCELS', quick ? 20 : 200))),
  /** Event exchanges per proxy path and round (after 3 uncounted ones per path). */
  events: Math.max(1, Math.round(num('BENCH_EVENTS', quick ? 10 : 30))),
  /** Counted starts per start-up target and round (after one uncounted start per target). */
  starts: Math.max(1, Math.round(num('BENCH_STARTS', quick ? 1 : 5))),
  measures: measures ?? [...MEASURES],
  targets,
  runtimes,
  partial,
  out: process.env.BENCH_OUT ?? join(RESULTS_DIR, partial ? 'partial.json' : 'latest.json'),
};

export type Config = typeof config;

/**
 * The entries BENCH_TARGETS and BENCH_RUNTIMES select, with the baselines they are measured
 * against (and theirs), in registry order.
 */
export function selection<T extends { id: string; runtime: string; baseline?: string }>(
  entries: readonly T[],
  { targets, runtimes }: Pick<Config, 'targets' | 'runtimes'> = config,
): T[] {
  const picked = (e: T) =>
    (!runtimes || runtimes.includes(e.runtime)) &&
    (!targets || targets.some((part) => e.id.includes(part)));
  const chosen = new Set(entries.filter(picked).map((e) => e.id));
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of entries) {
      if (chosen.has(entry.id) && entry.baseline && !chosen.has(entry.baseline)) {
        chosen.add(entry.baseline);
        grew = true;
      }
    }
  }
  return entries.filter((entry) => chosen.has(entry.id));
}
