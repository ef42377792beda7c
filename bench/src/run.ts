/**
 * `pnpm bench`: every measure in one invocation, each in interleaved rounds; then the results
 * JSON, the README's Results section (full runs only) and the tables on stdout.
 * `pnpm bench --quick` is a smoke run (one short round, small counts) that checks the bench still
 * runs; it exits non-zero when a target failed to start or to answer, never because of a figure.
 */
import { config, selection } from './config.ts';
import {
  cpuSnapshot,
  formatLoad,
  loadAverage,
  NOISY_LOAD,
  NOISY_OTHERS,
  othersCores,
} from './lib/system.ts';
import { type CloudflareResults, runCloudflare } from './measures/cloudflare.ts';
import { type CrossCancelRow, runCrossCancelRounds } from './measures/cross-cancel.ts';
import { type DisconnectRow, runDisconnectRounds } from './measures/disconnect.ts';
import { type FairnessRow, runFairness } from './measures/fairness.ts';
import { type IdleSessionRow, runIdleSessions } from './measures/idle-sessions.ts';
import { type ProxySseRow, runProxySseRounds } from './measures/proxy-sse.ts';
import { runSessions, type SessionRow } from './measures/sessions.ts';
import { runShutdownRounds, type ShutdownRow } from './measures/shutdown.ts';
import { runStartup, type StartupRow } from './measures/startup.ts';
import { runThroughput, type ThroughputRow } from './measures/throughput.ts';
import { environment } from './report/environment.ts';
import { judge } from './report/sections.ts';
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

let throughput: ThroughputRow[] = [];
let startup: StartupRow[] = [];
let sessions: SessionRow[] = [];
let idleSessions: IdleSessionRow[] = [];
let disconnect: DisconnectRow[] = [];
let shutdown: ShutdownRow[] = [];
let crossCancel: CrossCancelRow[] = [];
let proxySse: ProxySseRow[] = [];
let fairness: FairnessRow[] = [];
let cloudflare: CloudflareResults | undefined;

if (config.measures.includes('throughput')) {
  const targets = selection(THROUGHPUT_TARGETS);
  log(
    `throughput: ${targets.length} targets, ${config.warmup} s warm-up + ${config.duration} s each per round`,
  );
  throughput = await runThroughput(targets, config, log);
}
if (config.measures.includes('startup')) {
  const targets = selection(STARTUP_TARGETS);
  log(`start-up: ${targets.length} targets, ${config.starts} start(s) each per round`);
  startup = await runStartup(targets, config, log);
}
if (config.measures.includes('sessions')) {
  const targets = selection(SESSION_TARGETS);
  log(`sessions: ${targets.length} targets, ${config.sessions} idle legacy sessions per batch`);
  sessions = await runSessions(targets, config, log);
}
if (config.measures.includes('idle-sessions')) {
  const targets = selection(IDLE_SESSION_TARGETS);
  log(
    `idle sessions: ${config.idleSessions} idle legacy sessions, idle timeout ${config.idleTimeoutS} s, one round`,
  );
  idleSessions = await runIdleSessions(targets, config, log);
}
if (config.measures.includes('disconnect')) {
  disconnect = await runDisconnectRounds(selection(DISCONNECT_TARGETS), config, log);
}
if (config.measures.includes('shutdown')) {
  shutdown = await runShutdownRounds(selection(SHUTDOWN_TARGETS), config, log);
}
if (config.measures.includes('cross-cancel')) {
  const targets = selection(CROSS_CANCEL_TARGETS);
  if (targets.length > 0) {
    log(
      `cross-instance cancel: ${config.cancels} cancels per round, 2 example instances on one Redis`,
    );
    crossCancel = await runCrossCancelRounds(targets, config, log);
  }
}
if (config.measures.includes('proxy-sse')) {
  const targets = selection(PROXY_SSE_TARGETS);
  if (targets.length > 0) {
    log(
      `proxy SSE: ${config.events} exchanges per path and round (${targets.map((t) => t.id).join(', ')})`,
    );
    proxySse = await runProxySseRounds(targets, config, log);
  }
}
if (config.measures.includes('fairness')) {
  const targets = selection(FAIRNESS_TARGETS);
  if (targets.length > 0) {
    log(
      `fairness: 2 × ${config.warmup} s warm-up + 6 × ${config.duration} s (alone, attack, control, control, attack, alone) per round`,
    );
    fairness = await runFairness(targets, config, log);
  }
}
if (config.measures.includes('cloudflare')) {
  const storage = selection(STORAGE_TARGETS);
  const bundles = selection(BUNDLE_TARGETS);
  if (storage.length + bundles.length > 0) {
    log(`cloudflare: ${storage.length} storage and ${bundles.length} bundle targets`);
    cloudflare = await runCloudflare(storage, bundles, config, log);
  }
}

const loadEnd = loadAverage();
const others = othersCores(cpuStart, cpuSnapshot());
const results = {
  throughput,
  startup,
  sessions,
  idleSessions,
  disconnect,
  shutdown,
  crossCancel,
  proxySse,
  fairness,
  cloudflare,
};
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

const failures = [
  ...throughput.flatMap((r) => r.errors.map((e) => `${r.id} ${e}`)),
  ...startup.flatMap((r) => r.errors.map((e) => `start-up ${r.id} ${e}`)),
  ...sessions.flatMap((r) => r.errors.map((e) => `sessions ${r.id} ${e}`)),
  ...idleSessions.flatMap((r) => r.errors.map((e) => `idle-sessions ${r.id} ${e}`)),
  ...disconnect.flatMap((r) => r.errors.map((e) => `disconnect ${r.id} ${e}`)),
  ...shutdown.flatMap((r) => r.errors.map((e) => `shutdown ${r.id} ${e}`)),
  ...crossCancel.flatMap((r) => r.errors.map((e) => `cross-cancel ${r.id} ${e}`)),
  ...proxySse.flatMap((r) => r.errors.map((e) => `proxy-sse ${r.id} ${e}`)),
  ...fairness.flatMap((r) => r.errors.map((e) => `fairness ${r.id} ${e}`)),
  ...[...(cloudflare?.storage ?? []), ...(cloudflare?.bundles ?? [])].flatMap((r) =>
    r.errors.map((e) => `cloudflare ${r.id} ${e}`),
  ),
];
if (failures.length > 0) {
  log(`${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}
log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
