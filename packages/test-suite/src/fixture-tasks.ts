/**
 * Task tools of the suite's server (issue 14), for the tasks tests on workerd: tasks there run
 * in Durable Objects, so what a task's handler does is reported to a log the test reads (the
 * target's /__log), never by asking the object that runs it (a request would keep it awake).
 */
import { abortReasonType, type McpServer, type RequestContext } from '@edge-mcp/core';
import * as z from 'zod';
import type { LogSink } from './log-sink.ts';

let sink: LogSink | undefined;

/** Where the task tools report (on workerd: the deployment's log object). */
export function logTasksTo(to: LogSink): void {
  sink = to;
}

function report(line: Record<string, unknown>): void {
  sink?.push({ kind: 'task-tool', ...line });
}

/**
 * `task_sleep {ms}` (taskSupport `optional`): reports `start` (and progress 0 of `ms`), sleeps `ms` unless its signal
 * aborts first (then reports `aborted` with the reason), reports `done` and answers
 * `slept <ms> ms`. Each line names the task (`ctx.task.id`) and the principal. `task_again` is
 * the same with `idempotentHint` (a lost run may run again); `task_ask` reports `asking`, asks
 * for `ending`, reports `answered` and ends with it.
 */
export function addTaskTools(server: McpServer): void {
  server.tool(
    'task_sleep',
    {
      description: 'Sleeps ms milliseconds, as a task when the client declares the extension',
      inputSchema: z.object({ ms: z.number().int().min(0) }),
      taskSupport: 'optional',
    },
    ({ ms }, ctx) => sleepReporting(ms, ctx),
  );
  // The same, idempotent: a task whose runner was lost (a restart) may run it again.
  server.tool(
    'task_again',
    {
      description: 'Sleeps ms milliseconds; may run again from the start',
      inputSchema: z.object({ ms: z.number().int().min(0) }),
      annotations: { idempotentHint: true },
      taskSupport: 'optional',
    },
    ({ ms }, ctx) => sleepReporting(ms, ctx),
  );
  // Reports `asking`, asks how to end (`ending`), reports `answered` and finishes with it.
  server.tool(
    'task_ask',
    { description: 'Asks how to end, then ends so', taskSupport: 'optional' },
    async (_args, ctx) => {
      report({ event: 'asking', taskId: ctx.task?.id });
      const answer = await ctx.elicit(
        {
          message: 'How should it end?',
          requestedSchema: { type: 'object', properties: { ending: { type: 'string' } } },
        },
        'ending',
      );
      report({ event: 'answered', taskId: ctx.task?.id });
      return `ended: ${(answer.content as { ending?: string } | undefined)?.ending}`;
    },
  );
}

function sleepReporting(ms: number, ctx: RequestContext): Promise<string> {
  const { signal } = ctx;
  const who = { taskId: ctx.task?.id, principal: ctx.auth?.principal, ms };
  report({ event: 'start', ...who });
  // For a task, this goes where the era carries a task's progress (2025-11-25: the GET stream).
  ctx.progress(0, ms, 'sleeping');
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      report({ event: 'aborted', reason: abortReasonType(signal), ...who });
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      report({ event: 'done', ...who });
      resolve(`slept ${ms} ms`);
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
