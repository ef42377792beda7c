/**
 * Task tools of the suite's server (issue 14), for the tasks tests on workerd: tasks there run
 * in Durable Objects, so what a task's handler does is reported to a log the test reads (the
 * target's /__log), never by asking the object that runs it (a request would keep it awake).
 */
import { abortReasonType, type McpServer } from '@edge-mcp/core';
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
 * `slept <ms> ms`. Each line names the task (`ctx.task.id`) and the principal.
 */
export function addTaskTools(server: McpServer): void {
  server.tool(
    'task_sleep',
    {
      description: 'Sleeps ms milliseconds, as a task when the client declares the extension',
      inputSchema: z.object({ ms: z.number().int().min(0) }),
      taskSupport: 'optional',
    },
    ({ ms }, ctx) => {
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
    },
  );
}
