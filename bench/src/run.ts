/**
 * `pnpm bench`: every measure in one invocation, each in interleaved rounds; then the results
 * JSON, the README's Results section (full runs only) and the tables on stdout.
 * `pnpm bench --quick` is a smoke run (one short round, small counts) that checks the bench still
 * runs; it exits non-zero when a target failed to start or to answer, never because of a figure.
 */
import { type Config, config, type Measure, selection } from './config.ts';
import {
  cpuSnapshot,
  formatLoad,
  loadAverage,
  NOISY_LOAD,
  NOISY_OTHERS,
  othersCores,
} from './lib/system.ts';
import { runCloudflare } from './measures/cloudflare.ts';
import { runCrossCancelRounds } from './measures/cross-cancel.ts';
import { runDisconnectRounds } from './measures/disconnect.ts';
import { runFairness } from './measures/fairness.ts';
import { runIdleSessions } from './measures/idle-sessions.ts';
import { runProxySseRounds } from './measures/proxy-sse.ts';
import { runSessions } from './measures/sessions.ts';
import { runShutdownRounds } from './measures/shutdown.ts';
import { runStartup } from './measures/startup.ts';
import { runThroughput } from './measures/throughput.ts';
import { environment } from './report/environment.ts';
import { judge } from './report/sections.ts';
import type { Results } from './report/types.ts';
import { writeOutputs } from './report/write.ts';
import {
  DISCONNECT_TARGETS,
  FAIRNESS_TARGETS,
  IDLE_SESSION_TARGETS,
  SESSION_TARGETS,
  SHUTDOWN_TARGETS,
  STARTUP_TARGETS,
  THROUGHPUT_TARGETS,
} from './targets.ts';
import { BUNDLE_TARGETS, STORAGE_TARGETS } from './targets-cloudflare.ts';
import { CROSS_CANCEL_TARGETS, PROXY_SSE_TARGETS } from './targets-example.ts';

const started = performance.now();
const log = (line: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

function warnIfNoisy(when: string, load: [number, number, number]): void {
  if (load[0] > NOISY_LOAD) {
    log(
      `WARNING: load average ${formatLoad(load)} ${when} (1-minute figure above ${NOISY_LOAD}): other work shares the CPU, the figures are noisy`,
    );
  }
}

const loadStart = loadAverage();
const cpuStart = cpuSnapshot();
const env = environment();
log(
  `${env.machine.cpuModel} × ${env.machine.cpuCount}; ${config.rounds} round(s)${config.quick ? ' (quick)' : ''}; measures: ${config.measures.join(', ')}; load average ${formatLoad(loadStart)}`,
);
warnIfNoisy('at the start', loadStart);

type Log = (line: string) => void;
const failures: string[] = [];
const failed = (name: string, rows: readonly { id: string; errors: string[] }[]) =>
  failures.push(...rows.flatMap((r) => r.errors.map((e) => `${name} ${r.id} ${e}`)));

/** Measure `name` on the selected `targets` (with their baselines); none when it is not run. */
async function measure<
  T extends { id: string; runtime: string },
  R extends { id: string; errors: string[] },
>(
  name: Measure,
  targets: readonly T[],
  what: (targets: T[]) => string,
  run: (targets: T[], config: Config, log: Log) => Promise<R[]>,
): Promise<R[]> {
  const chosen = selection(targets);
  if (!config.measures.includes(name) || chosen.length === 0) return [];
  log(`${name}: ${what(chosen)}`);
  const rows = await run(chosen, config, log);
  failed(name, rows);
  return rows;
}

async function cloudflare(): Promise<Results['cloudflare']> {
  const storage = selection(STORAGE_TARGETS);
  const bundles = selection(BUNDLE_TARGETS);
  if (!config.measures.includes('cloudflare') || storage.length + bundles.length === 0) return;
  log(`cloudflare: ${storage.length} storage and ${bundles.length} bundle targets`);
  const rows = await runCloudflare(storage, bundles, config, log);
  failed('cloudflare', [...rows.storage, ...rows.bundles]);
  return rows;
}

const { warmup, duration } = config;
// In the order of the measures in the JSON and the tables.
const results: Results = {
  throughput: await measure(
    'throughput',
    THROUGHPUT_TARGETS,
    (t) => `${t.length} targets, ${warmup} s warm-up + ${duration} s each per round`,
    runThroughput,
  ),
  startup: await measure(
    'startup',
    STARTUP_TARGETS,
    (t) => `${t.length} targets, ${config.starts} start(s) each per round`,
    runStartup,
  ),
  sessions: await measure(
    'sessions',
    SESSION_TARGETS,
    (t) => `${t.length} targets, ${config.sessions} idle legacy sessions per batch`,
    runSessions,
  ),
  idleSessions: await measure(
    'idle-sessions',
    IDLE_SESSION_TARGETS,
    () =>
      `${config.idleSessions} idle legacy sessions, idle timeout ${config.idleTimeoutS} s, one round`,
    runIdleSessions,
  ),
  disconnect: await measure(
    'disconnect',
    DISCONNECT_TARGETS,
    (t) => `${t.length} runtimes, ${config.drops} drops each per round`,
    runDisconnectRounds,
  ),
  shutdown: await measure(
    'shutdown',
    SHUTDOWN_TARGETS,
    () => `${config.shutdownSessions} sessions, ${config.inFlight} calls in flight`,
    runShutdownRounds,
  ),
  crossCancel: await measure(
    'cross-cancel',
    CROSS_CANCEL_TARGETS,
    () => `${config.cancels} cancels per round, 2 example instances on one Redis`,
    runCrossCancelRounds,
  ),
  proxySse: await measure(
    'proxy-sse',
    PROXY_SSE_TARGETS,
    (t) => `${config.events} exchanges per path and round (${t.map((x) => x.id).join(', ')})`,
    runProxySseRounds,
  ),
  fairness: await measure(
    'fairness',
    FAIRNESS_TARGETS,
    () =>
      `2 × ${warmup} s warm-up + 6 × ${duration} s (alone, attack, control, control, attack, alone) per round`,
    runFairness,
  ),
  cloudflare: await cloudflare(),
};

const loadEnd = loadAverage();
const others = othersCores(cpuStart, cpuSnapshot());
const goals = judge(results);
const { partial, out, ...knobs } = config;
// The load average at the end counts this run's own processes too; other work is judged by
// the load before the run and by the CPU time others used during it.
const noisy = loadStart[0] > NOISY_LOAD || (others ?? 0) > NOISY_OTHERS;
const report = {
  ...env,
  config: { ...knobs, partial },
  load: { start: loadStart, end: loadEnd, othersCores: others, noisy },
  results,
  goals,
};
console.log(`\n${writeOutputs(report, out, log)}\n`);
warnIfNoisy('at the end (counting this run itself)', loadEnd);
if (others !== null) {
  log(`other work used ${others.toFixed(2)} cores on average during the run`);
}
if (noisy) log('this run is noisy: treat its figures as provisional');

if (failures.length > 0) {
  log(`${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}
log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
