/**
 * The verdict of a task chaos run (task-chaos.ts), from what the client saw and what the servers
 * logged: every guarantee of issue 27 item 5 as a count that must be 0, and the counts that show
 * the run exercised something (runs again, kills, answers after a kill).
 *
 * @module
 */
import type { TaskChaosRun } from './task-chaos.ts';
import { runnerAt, runsByTask } from './task-chaos-log.ts';

export interface TaskChaosFindings {
  /** Must be 0. */
  lost: number;
  unknown: number;
  /** `sleep` tasks (no `retry`) begun more than once. */
  reranNotAllowed: number;
  /** Tasks whose end was written `completed` by more than one run. */
  completedTwice: number;
  /** Answered after the instance that held them was killed, and not completed. */
  askedNotCompleted: number;
  /** Failed for another reason than a lost runner, or before their tool's runs were used up. */
  failedUnexplained: number;
  /** A completed task whose result is not its tool's. */
  wrongResult: number;
  /** What the run exercised. */
  tasks: number;
  kills: number;
  reruns: number;
  refusedEnds: number;
  askedAfterKill: number;
  instanceLost: number;
  examples: string[];
}

/** Runs each kind's tool allows: `long_job` is idempotent (3), `sleep` 1, `ask_job` 1 past its input. */
const ALLOWED = { long: 3, once: 1, ask: 16 };

export function taskChaosFindings(run: TaskChaosRun): TaskChaosFindings {
  const byTask = runsByTask(run.outputs);
  const f: TaskChaosFindings = {
    lost: 0,
    unknown: run.unknown,
    reranNotAllowed: 0,
    completedTwice: 0,
    askedNotCompleted: 0,
    failedUnexplained: 0,
    wrongResult: 0,
    tasks: run.tasks.length,
    kills: run.kills.length,
    reruns: 0,
    refusedEnds: 0,
    askedAfterKill: 0,
    instanceLost: 0,
    examples: [],
  };
  const example = (what: string) => {
    if (f.examples.length < 10) f.examples.push(what);
  };
  for (const task of run.tasks) {
    const runs = byTask.get(task.taskId);
    const starts = runs?.starts.length ?? 0;
    f.reruns += Math.max(0, starts - 1);
    f.refusedEnds += runs?.ends.filter((end) => end.outcome === 'refused').length ?? 0;
    if (!['completed', 'failed', 'cancelled'].includes(task.status)) {
      f.lost++;
      example(`${task.kind} ${task.taskId} still ${task.status}`);
    }
    if (task.kind === 'once' && starts > 1) {
      f.reranNotAllowed++;
      example(`sleep ${task.taskId} began ${starts} times`);
    }
    const completions = runs?.ends.filter((end) => end.outcome === 'completed').length ?? 0;
    if (completions > 1) {
      f.completedTwice++;
      example(`${task.kind} ${task.taskId} completed by ${completions} runs`);
    }
    if (task.status === 'completed') {
      const expected = task.kind === 'ask' ? /finished: signed off$/ : /done|slept/;
      if (!expected.test(task.text ?? '')) {
        f.wrongResult++;
        example(`${task.kind} ${task.taskId} completed with ${JSON.stringify(task.text)}`);
      }
    }
    if (task.status === 'failed') {
      const reason = task.error?.data?.reason;
      if (reason === 'instance-lost') f.instanceLost++;
      // A lost runner fails a task only once its tool's runs are used up.
      if (reason !== 'instance-lost' || (task.kind !== 'ask' && starts < ALLOWED[task.kind])) {
        f.failedUnexplained++;
        example(`${task.kind} ${task.taskId} failed (${reason}) after ${starts} runs`);
      }
    }
    const { askedAt, answeredAt } = task;
    if (task.kind === 'ask' && askedAt !== undefined && answeredAt !== undefined) {
      // Answered after the instance whose run asked was killed: it must complete.
      const asker = runnerAt(runs, askedAt);
      const killedBetween = run.kills.some(
        (kill) => kill.tag === asker && kill.at > askedAt && kill.at < answeredAt,
      );
      if (killedBetween) {
        f.askedAfterKill++;
        if (task.status !== 'completed') {
          f.askedNotCompleted++;
          example(`ask ${task.taskId} answered after its runner died, ended ${task.status}`);
        }
      }
    }
  }
  return f;
}

export function formatTaskChaos(f: TaskChaosFindings, ms: number): string {
  return (
    `task chaos: ${f.tasks} tasks in ${(ms / 1000).toFixed(1)} s, ${f.kills} kills; ` +
    `${f.reruns} runs again, ${f.refusedEnds} ends refused, ${f.askedAfterKill} answered after their runner died, ` +
    `${f.instanceLost} instance-lost; lost ${f.lost}, unknown ${f.unknown}, ` +
    `re-run not allowed ${f.reranNotAllowed}, completed twice ${f.completedTwice}, ` +
    `answered and not completed ${f.askedNotCompleted}, failures unexplained ${f.failedUnexplained}, ` +
    `wrong results ${f.wrongResult}` +
    (f.examples.length > 0 ? `\n  ${f.examples.join('\n  ')}` : '')
  );
}
