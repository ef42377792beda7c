/**
 * The short task chaos run of `pnpm test` (issue 27 item 5; `STRESS_ONLY=tasks pnpm stress` runs
 * it with 1,000 tasks): three `pnpm start` instances and two `pnpm start:worker` processes on a
 * real redis-server, one of them SIGKILLed every few seconds while a client starts and polls
 * tasks. Every task ends, none is unknown, none that may not run again runs twice, none completes
 * twice, and every `ask_job` answered after its runner was killed completes.
 */
import { type RedisServer, startRedis } from '@edge-mcp/test-kit/node';
import { afterAll, expect, test } from 'vitest';
import { killStartedApps } from '../src/app-process.ts';
import { runTaskChaos } from '../src/task-chaos.ts';
import { formatTaskChaos, taskChaosFindings } from '../src/task-chaos-report.ts';

const TASKS = Number(process.env.TASK_CHAOS_TASKS ?? 60);
const KILL_EVERY_MS = Number(process.env.TASK_CHAOS_KILL_MS ?? 2000);
/** However fast the machine, the run lasts until this many processes were killed. */
const MIN_KILLS = 5;

let redis: RedisServer | undefined;
afterAll(async () => {
  killStartedApps();
  await redis?.stop();
});

test(`task chaos: ${TASKS} tasks, a runner SIGKILLed every ${KILL_EVERY_MS} ms`, async () => {
  redis = await startRedis();
  const run = await runTaskChaos({
    redisUrl: redis.url,
    tasks: TASKS,
    killEveryMs: KILL_EVERY_MS,
    concurrency: 20,
    minKills: MIN_KILLS,
    log: (line) => console.log(line),
  });
  const found = taskChaosFindings(run);
  console.log(formatTaskChaos(found, run.ms));
  expect(run.started).toBeGreaterThanOrEqual(TASKS);
  expect(found.tasks + run.notTasks).toBe(run.started);
  expect(run.notTasks).toBe(0);
  expect({
    lost: found.lost,
    unknown: found.unknown,
    reranNotAllowed: found.reranNotAllowed,
    completedTwice: found.completedTwice,
    askedNotCompleted: found.askedNotCompleted,
    failedUnexplained: found.failedUnexplained,
    wrongResult: found.wrongResult,
  }).toEqual({
    lost: 0,
    unknown: 0,
    reranNotAllowed: 0,
    completedTwice: 0,
    askedNotCompleted: 0,
    failedUnexplained: 0,
    wrongResult: 0,
  });
  // The run did what it is for: kills, runs again, input answered after its runner died.
  expect(found.kills).toBeGreaterThanOrEqual(MIN_KILLS);
  // Workers and the queueing front were among the victims, not only fronts that run their own.
  expect(new Set(run.kills.map((kill) => kill.role))).toEqual(
    new Set(['front', 'worker', 'queueing-front']),
  );
  expect(found.reruns).toBeGreaterThan(0);
  expect(found.askedAfterKill).toBeGreaterThan(0);
}, 600_000);
