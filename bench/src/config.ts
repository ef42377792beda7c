/** Environment knobs of `pnpm bench` (see README.md). */
import { join } from 'node:path';
import { RESULTS_DIR } from './lib/paths.ts';

const quick = process.env.BENCH_QUICK === '1';

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

export const MEASURES = ['throughput', 'sessions', 'disconnect', 'shutdown'] as const;
export type Measure = (typeof MEASURES)[number];

const measures = list('BENCH_MEASURES') as Measure[] | undefined;
const targets = list('BENCH_TARGETS');
const runtimes = list('BENCH_RUNTIMES');
/** A run with any knob but BENCH_OUT set writes partial.json and leaves the README alone. */
const partial = Object.keys(process.env).some(
  (name) => name.startsWith('BENCH_') && name !== 'BENCH_OUT' && process.env[name] !== '',
);

export const config = {
  quick,
  /** Seconds of load per throughput scenario, after `warmup` seconds of the same load. */
  duration: num('BENCH_DURATION', quick ? 3 : 10),
  warmup: num('BENCH_WARMUP', quick ? 1 : 2),
  connections: num('BENCH_CONNECTIONS', 50),
  /** Idle sessions created for the memory and session-creation measure. */
  sessions: num('BENCH_SESSIONS', quick ? 2000 : 10_000),
  drops: num('BENCH_DROPS', quick ? 50 : 200),
  shutdownSessions: num('BENCH_SHUTDOWN_SESSIONS', quick ? 2000 : 10_000),
  inFlight: num('BENCH_INFLIGHT', 100),
  measures: measures ?? [...MEASURES],
  targets,
  runtimes,
  partial,
  out: process.env.BENCH_OUT ?? join(RESULTS_DIR, partial ? 'partial.json' : 'latest.json'),
};

export type Config = typeof config;

/** Whether a target id / runtime passes the BENCH_TARGETS and BENCH_RUNTIMES filters. */
export function selected(id: string, runtime: string): boolean {
  if (config.runtimes && !config.runtimes.includes(runtime)) return false;
  return !config.targets || config.targets.some((part) => id.includes(part));
}
