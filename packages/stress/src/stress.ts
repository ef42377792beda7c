/**
 * `pnpm stress`: the long runs of what `pnpm test` runs briefly — 100,000 fuzz scenarios through
 * the core handler in-process, a 10-minute soak of a real Node server, then the abuse mode
 * against the example on Node, Deno and Bun — and a summary.
 * Exits 1 if any invariant broke.
 *
 * Environment (defaults in brackets):
 *   STRESS_FUZZ_RUNS [100000]   scenarios in all, split across the properties
 *   STRESS_FUZZ_SECONDS [3600]  time limit of each property
 *   STRESS_SOAK_SECONDS [600]   soak duration (after a 5 s warm-up)
 *   STRESS_CLIENTS [32]         concurrent soak clients
 *   STRESS_STALLED [8]          stalled readers kept open during the soak
 *   STRESS_HEAP_MIB [16]        allowed heap growth after GC
 *   STRESS_ONLY [all]           `fuzz`, `soak`, `abuse`, `deploy`, `chaos` or `tasks`
 *   STRESS_DEPLOY_SESSIONS [500] sessions of the rolling deploy (three instances behind HAProxy,
 *                               each replaced twice, by SIGTERM with a drain and by SIGKILL)
 *   STRESS_CHAOS_SESSIONS [300] sessions of the Redis Cluster chaos run (three instances on a
 *                               sharded cluster; failovers, SIGKILLed primaries, slot migrations)
 *   STRESS_CHAOS_ROUNDS [5]     rounds of its three steps
 *   STRESS_TASKS [1000]         tasks of the task chaos run (three instances and two task workers
 *                               on Redis, one SIGKILLed every STRESS_TASK_KILL_MS [5000])
 *   STRESS_ABUSE_RUNTIMES [node,deno,bun]  where the abuse mode attacks the example (192 MB heap)
 *   FUZZ_SEED, SOAK_SEED        replay a printed seed
 */

import { abuseFailures, formatAbuse, runAbuse } from './abuse/abuse.ts';
import { SCALES } from './abuse/attacks.ts';
import type { Runtime } from './abuse/target.ts';
import {
  type Budget,
  eraProperty,
  mergeTallies,
  type PropertyResult,
  resourcesProperty,
  shutdownProperty,
} from './fuzz/properties.ts';
import { MiB } from './leaks.ts';
import { formatSoak, soak } from './soak/soak.ts';

function env(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
}

const only = process.env.STRESS_ONLY;
const failures: string[] = [];
process.on('unhandledRejection', (reason) => {
  failures.push(`unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`);
});

function line(result: PropertyResult): string {
  const t = result.tally;
  return (
    `  ${result.name}: ${result.runs} runs in ${(result.ms / 1000).toFixed(1)} s ` +
    `(${Math.round((result.runs / result.ms) * 1000)}/s), seed ${result.seed}, ` +
    `${t.exchanges} exchanges, ${t.sseAnswers} streams, ${t.clientAborts} aborts` +
    (result.closeMs === undefined ? '' : `, close ${Math.round(result.closeMs)} ms`)
  );
}

async function fuzz(): Promise<void> {
  const total = env('STRESS_FUZZ_RUNS', 100_000);
  const timeMs = env('STRESS_FUZZ_SECONDS', 3600) * 1000;
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  const share = (fraction: number): Budget => ({
    numRuns: Math.max(1, Math.round(total * fraction)),
    timeMs,
    seed,
  });
  console.log(`fuzz: ${total} scenarios`);
  const started = performance.now();
  const results: PropertyResult[] = [];
  const attempt = async (run: () => Promise<PropertyResult>) => {
    try {
      const result = await run();
      results.push(result);
      console.log(line(result));
    } catch (error) {
      failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
      console.log(`  FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // Handlers mostly wait on timers: three independent properties side by side.
  await Promise.all([
    attempt(() => eraProperty('default', 'modern', share(0.3))),
    attempt(() => eraProperty('default', 'legacy', share(0.3))),
    attempt(() => shutdownProperty(share(0.2))),
  ]);
  // Tracks every timer of the process: alone.
  await attempt(() => resourcesProperty(share(0.2)));
  const ms = performance.now() - started;
  const runs = results.reduce((sum, r) => sum + r.runs, 0);
  const tally = mergeTallies(results.map((r) => r.tally));
  console.log(
    `fuzz total: ${runs} scenarios, ${tally.exchanges} exchanges in ${(ms / 1000).toFixed(1)} s ` +
      `(${Math.round((runs / ms) * 1000)} scenarios/s, ${Math.round((tally.exchanges / ms) * 1000)} exchanges/s)\n` +
      `  statuses ${JSON.stringify(tally.byStatus)}\n` +
      `  ${tally.sseAnswers} streams (${tally.sseEvents} events), ${tally.clientAborts} client aborts, ` +
      `${tally.cancelledReads} cancelled reads, ${tally.answeredQuestions} questions answered, ` +
      `${tally.inputRetries} input retries, ${tally.resumes} resumes, ${tally.erroredStreams} cut streams`,
  );
}

async function soakRun(): Promise<void> {
  const seconds = env('STRESS_SOAK_SECONDS', 600);
  console.log(`soak: ${seconds} s`);
  const summary = await soak({
    seconds,
    warmupSeconds: 5,
    clients: env('STRESS_CLIENTS', 32),
    stalledReaders: env('STRESS_STALLED', 8),
    heapBound: env('STRESS_HEAP_MIB', 16) * MiB,
    seed: process.env.SOAK_SEED === undefined ? undefined : Number(process.env.SOAK_SEED),
    log: (text) => console.log(`  ${text}`),
  });
  console.log(formatSoak(summary));
  if (Object.keys(summary.errors).length > 0)
    failures.push(
      `soak errors: ${JSON.stringify(summary.errors)} ${JSON.stringify(summary.examples)}`,
    );
  const { inFlight, openStreams, sessions } = summary.after;
  if (inFlight !== 0 || openStreams !== 0 || sessions !== 0)
    failures.push(`soak: not back to zero: ${JSON.stringify(summary.after)}`);
  if (summary.heap.growth > summary.heap.bound)
    failures.push(
      `soak: heap grew ${(summary.heap.growth / MiB).toFixed(1)} MiB (bound ${(summary.heap.bound / MiB).toFixed(1)} MiB)`,
    );
  if (Object.keys(summary.leftoverHandles).length > 0)
    failures.push(`soak: handles left: ${JSON.stringify(summary.leftoverHandles)}`);
}

/** The abuse mode at length: every attack against the example, on each runtime. */
async function abuse(): Promise<void> {
  const runtimes = (process.env.STRESS_ABUSE_RUNTIMES ?? 'node,deno,bun').split(',') as Runtime[];
  for (const runtime of runtimes) {
    console.log(`abuse: ${runtime}`);
    try {
      const report = await runAbuse(runtime, SCALES.long);
      console.log(formatAbuse(report));
      const broken = abuseFailures(report);
      if (broken.length > 0) failures.push(`abuse on ${runtime}: ${broken.join('; ')}`);
    } catch (error) {
      failures.push(
        `abuse on ${runtime}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/** One test file of the test suite as its own vitest process, with `env`; a failure is recorded. */
async function suiteRun(what: string, file: string, env: Record<string, string>): Promise<void> {
  const { spawnSync } = await import('node:child_process');
  const suite = new URL('../../test-suite/', import.meta.url).pathname;
  const run = spawnSync('pnpm', ['exec', 'vitest', 'run', '--project', 'suite', file], {
    cwd: suite,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (run.status !== 0) failures.push(`${what} failed (exit ${run.status})`);
}

/**
 * The rolling deploy at length: the test-suite's rolling-deploy test with 500 sessions and six
 * replacements (every instance drained once and killed once).
 */
async function deploy(): Promise<void> {
  const sessions = env('STRESS_DEPLOY_SESSIONS', 500);
  console.log(`deploy: ${sessions} sessions, 6 replacements`);
  await suiteRun('deploy: the rolling deploy', 'test/rolling-deploy.test.ts', {
    ROLLING_SESSIONS: String(sessions),
    ROLLING_REPLACEMENTS: 'SIGTERM,SIGKILL,SIGTERM,SIGKILL,SIGTERM,SIGKILL',
  });
}

/**
 * The Redis Cluster chaos run at length (issue 26): the test-suite's cluster-chaos test with 300
 * sessions and five rounds of a failover, a SIGKILLed primary and a slot migration.
 */
async function chaos(): Promise<void> {
  const sessions = env('STRESS_CHAOS_SESSIONS', 300);
  const rounds = env('STRESS_CHAOS_ROUNDS', 5);
  console.log(`chaos: ${sessions} sessions, ${rounds} rounds on a Redis Cluster`);
  await suiteRun('chaos: the Redis Cluster chaos run', 'test/cluster-chaos.test.ts', {
    CHAOS_SESSIONS: String(sessions),
    CHAOS_ROUNDS: String(rounds),
  });
}

/**
 * The task chaos run at length (issue 27 item 5): the test-suite's task-chaos test with 1,000
 * tasks over three instances and two workers, one SIGKILLed every 5 s.
 */
async function taskChaos(): Promise<void> {
  const tasks = env('STRESS_TASKS', 1000);
  const killMs = env('STRESS_TASK_KILL_MS', 5000);
  console.log(`tasks: ${tasks} tasks, a runner SIGKILLed every ${killMs} ms`);
  await suiteRun('tasks: the task chaos run', 'test/task-chaos.test.ts', {
    TASK_CHAOS_TASKS: String(tasks),
    TASK_CHAOS_KILL_MS: String(killMs),
  });
}

if (only === undefined || only === 'fuzz') await fuzz();
if (only === undefined || only === 'soak') await soakRun();
if (only === undefined || only === 'abuse') await abuse();
if (only === undefined || only === 'deploy') await deploy();
if (only === undefined || only === 'chaos') await chaos();
if (only === undefined || only === 'tasks') await taskChaos();
if (failures.length > 0) {
  console.log(`\n${failures.length} failure(s):\n${failures.join('\n\n')}`);
  process.exitCode = 1;
} else console.log('\nstress: all invariants held');
