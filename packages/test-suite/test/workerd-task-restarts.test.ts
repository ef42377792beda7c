/**
 * Issue 27 item 5 on Durable Objects: tasks through three SIGKILLs of `wrangler dev` (the whole
 * process group, workerd included) on one persisted storage directory. Each round starts a batch
 * of tasks — `task_again` (idempotent: may run again), `task_sleep` (may not), `task_ask` (waits
 * for input), and short ones that finish before the kill — waits until each is running or
 * asking, and kills the server; the next round starts it again, wakes the earlier tasks by
 * reading them and answers the earlier asks.
 *
 * Counted from the client's answers and from the deployment's log (each run's `start`/`asking`
 * line from the task tools, each run's end from `tasks.onRun`), never by asking a task's object:
 * every task ends, none is unknown, no `task_sleep` runs twice, no task is completed by two runs,
 * every `task_ask` answered after the kill completes with its answer, and the re-runnable ones
 * killed once complete on their second run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modern, readAnswer, until } from '@edge-mcp/test-kit';
import { afterAll, expect, test } from 'vitest';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { SpawnedTarget } from '../src/targets/spawn.ts';
import type { LogLine, Target } from '../src/targets/types.ts';

const CLIENT = {
  capabilities: {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    elicitation: { form: {} },
  },
};
const ROUNDS = 4;
/** Of each kind, per round. */
const PER_KIND = 3;
const END = ['completed', 'failed', 'cancelled'];

type Kind = 'again' | 'once' | 'ask' | 'short';
interface Started {
  kind: Kind;
  taskId: string;
  round: number;
  answered?: boolean;
}

async function rpc(target: Target, method: string, params: Record<string, unknown>) {
  return readAnswer(await fetch(target.mcpUrl, modern(method, params, CLIENT)));
}

async function start(target: Target, kind: Kind, round: number): Promise<Started> {
  const [name, args] =
    kind === 'again'
      ? ['task_again', { ms: 4000 }]
      : kind === 'once'
        ? ['task_sleep', { ms: 600_000 }]
        : kind === 'ask'
          ? ['task_ask', {}]
          : ['task_sleep', { ms: 10 }];
  const answer = await rpc(target, 'tools/call', { name, arguments: args });
  expect(answer.message.result, JSON.stringify(answer.message)).toMatchObject({
    resultType: 'task',
  });
  return { kind, taskId: answer.message.result.taskId, round };
}

/** The line a run of the task writes first (`start`, or `asking` for `task_ask`). */
const begins = (task: Started) => (line: LogLine) =>
  line.kind === 'task-tool' &&
  line.taskId === task.taskId &&
  line.event === (task.kind === 'ask' ? 'asking' : 'start');

/** The end of a run that completed the task (`tasks.onRun`). */
const completes = (task: Started) => (line: LogLine) =>
  line.kind === 'task-run' &&
  line.taskId === task.taskId &&
  line.phase === 'end' &&
  line.outcome === 'completed';

const dirs: string[] = [];
let target: Target | undefined;
afterAll(async () => {
  await target?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('Durable Object tasks through SIGKILLs of wrangler dev: none lost or unknown, none run twice that may not, none completed twice, every answered ask completes', async () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'edge-mcp-task-restarts-'));
  dirs.push(persistTo);
  const tasks: Started[] = [];
  /** Every round's log, read just before its kill (the log object does not outlive it). */
  const lines: LogLine[] = [];
  const unknown: string[] = [];

  for (let round = 0; round < ROUNDS; round++) {
    target = await workerdTarget('suite', { persistTo });
    const current = target;
    // Wake what the last kill interrupted, and answer what asked before it.
    for (const task of tasks) {
      const got = await rpc(current, 'tasks/get', { taskId: task.taskId });
      if (got.message.error?.code === -32602) unknown.push(task.taskId);
    }
    for (const task of tasks.filter((t) => t.kind === 'ask' && !t.answered)) {
      const waiting = await until(
        async () => {
          const got = (await rpc(current, 'tasks/get', { taskId: task.taskId })).message.result;
          return got?.status === 'input_required' && got;
        },
        `${task.taskId} to ask again after the restart`,
        30_000,
        100,
      );
      expect(Object.keys(waiting.inputRequests)).toEqual(['ending']);
      const ack = await rpc(current, 'tasks/update', {
        taskId: task.taskId,
        inputResponses: { ending: { action: 'accept', content: { ending: `round ${round}` } } },
      });
      expect(ack.message.result).toMatchObject({ resultType: 'complete' });
      task.answered = true;
    }
    if (round === ROUNDS - 1) break;
    const batch: Started[] = [];
    for (let i = 0; i < PER_KIND; i++)
      for (const kind of ['again', 'once', 'ask', 'short'] as const)
        batch.push(await start(current, kind, round));
    tasks.push(...batch);
    // Each running (or asking) when the server dies; the short ones completed; the round
    // before's re-runnable and answered ones (running again since they were read) completed
    // too, so each is killed once.
    const earlier = tasks.filter((t) => t.round === round - 1 && ['again', 'ask'].includes(t.kind));
    let pending: Started[] = [];
    let log: LogLine[] = [];
    await until(
      async () => {
        log = await current.log();
        pending = [
          ...batch.filter((task) => !log.some(begins(task))),
          ...[...batch.filter((t) => t.kind === 'short'), ...earlier].filter(
            (task) => !log.some(completes(task)),
          ),
        ];
        return pending.length === 0;
      },
      `round ${round}'s tasks to be running`,
      60_000,
      100,
    ).catch((error: Error) => {
      const which = pending.map((t) => {
        const seen = log.filter((l) => l.taskId === t.taskId).map((l) => l.event ?? l.phase);
        return `${t.kind} of round ${t.round} ${t.taskId} (logged: ${seen.join(' ') || 'nothing'})`;
      });
      throw new Error(`${error.message}; still waiting for: ${which.join(', ')}`);
    });
    lines.push(...(await current.log()));
    const spawned = current as SpawnedTarget;
    spawned.kill('SIGKILL');
    await spawned.exited;
  }

  // The last round: every task ends.
  const last = target as Target;
  const ends = new Map<string, Record<string, unknown>>();
  for (const task of tasks) {
    const ended = await until(
      async () => {
        const got = await rpc(last, 'tasks/get', { taskId: task.taskId });
        if (got.message.error?.code === -32602) return { status: 'unknown' };
        const result = got.message.result;
        return END.includes(result?.status) && result;
      },
      `${task.kind} ${task.taskId} to end`,
      60_000,
      200,
    );
    ends.set(task.taskId, ended);
  }
  // The last round completes the tasks the kill before it interrupted: wait for those ends.
  await until(
    async () => {
      const log = await last.log();
      const done = tasks.filter((t) => t.kind === 'again' || t.kind === 'ask');
      return done.every((t) => t.round < ROUNDS - 2 || log.some(completes(t)));
    },
    'every completed run to be logged',
    30_000,
    100,
  );
  lines.push(...(await last.log()));

  const runs = (task: Started) => lines.filter(begins(task)).length;
  const completions = (task: Started) => lines.filter(completes(task)).length;
  const found = {
    unknown: unknown.length + tasks.filter((t) => ends.get(t.taskId)?.status === 'unknown').length,
    sleepRunTwice: tasks.filter((t) => t.kind === 'once' && runs(t) > 1).map((t) => t.taskId),
    completedTwice: tasks.filter((t) => completions(t) > 1).map((t) => t.taskId),
    shortRunAgain: tasks.filter((t) => t.kind === 'short' && runs(t) > 1).map((t) => t.taskId),
  };
  expect(found).toEqual({ unknown: 0, sleepRunTwice: [], completedTwice: [], shortRunAgain: [] });
  for (const task of tasks) {
    const end = ends.get(task.taskId) as { status: string; result?: any; error?: any };
    if (task.kind === 'once') {
      // Killed while it ran, and it may not run again: failed, with the reason.
      expect(end).toMatchObject({ status: 'failed', error: { data: { reason: 'restart' } } });
    } else if (task.kind === 'again') {
      // Killed once, run again once, completed.
      expect(runs(task)).toBe(2);
      expect(end).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'slept 4000 ms' }] },
      });
    } else if (task.kind === 'ask') {
      expect(task.answered).toBe(true);
      expect(end).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: `ended: round ${task.round + 1}` }] },
      });
    } else {
      expect(end).toMatchObject({ status: 'completed' });
      expect(runs(task)).toBe(1);
    }
    expect(completions(task)).toBe(task.kind === 'once' ? 0 : 1);
  }
}, 600_000);
