import type { RequestEvent, SessionEvent, TaskRunEvent } from '@edge-mcp/core';

/**
 * One JSON line per finished request, for `onRequest`: what was called, how it ended, why it was
 * cancelled or refused (with the HTTP status of a refusal: a 401, a 403 for Host or Origin, a
 * 404 for a session) and how long it took. Written with `write` (stderr in the apps).
 */
export function requestLogger(write: (line: string) => void): (event: RequestEvent) => void {
  return (event) => {
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      id: event.id ?? null,
      method: event.method,
      name: event.name ?? null,
      protocolVersion: event.protocolVersion ?? null,
      outcome: event.outcome,
      ms: event.ms,
    };
    if (event.sessionId) line.sessionId = event.sessionId;
    if (event.status !== undefined) line.status = event.status;
    if (event.reason) line.reason = event.reason;
    if (event.errorCode !== undefined) line.errorCode = event.errorCode;
    if (event.error !== undefined) line.error = event.error;
    write(JSON.stringify(line));
  };
}

/** One JSON line per legacy session opened or closed, for `onSessionOpen` / `onSessionClose`. */
export function sessionLogger(
  write: (line: string) => void,
  event: 'session-open' | 'session-close',
): (session: SessionEvent) => void {
  return (session) => {
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      event,
      sessionId: session.sessionId,
      protocolVersion: session.protocolVersion,
    };
    if (session.reason) line.reason = session.reason;
    if (session.clientInfo)
      line.client = `${session.clientInfo.name}/${session.clientInfo.version}`;
    write(JSON.stringify(line));
  };
}

/**
 * One JSON line per task run begun or ended, for `tasks.onRun`: which runner took the task, its
 * attempt and fencing token, and (at the end) what the run wrote, `refused` or `stopped`. What
 * shows a task moving to another instance after its runner was lost.
 */
export function taskRunLogger(write: (line: string) => void): (event: TaskRunEvent) => void {
  return (event) => {
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      event: event.phase === 'start' ? 'task-run' : 'task-end',
      taskId: event.taskId,
      tool: event.tool,
      runner: event.runner,
      attempt: event.attempt,
      fence: event.fence,
    };
    if (event.outcome) line.outcome = event.outcome;
    if (event.reason) line.reason = event.reason;
    write(JSON.stringify(line));
  };
}
