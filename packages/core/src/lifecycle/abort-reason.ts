/**
 * Why a handler's signal aborted. Every abort in edge-mcp carries one of these.
 * - `disconnect`: the client dropped the HTTP exchange (modern era: that is the cancellation).
 * - `client-cancel`: the client sent `notifications/cancelled` (legacy era).
 * - `session-deleted` / `session-expired`: the session ended by DELETE / idle timeout (legacy era).
 * - `session-evicted`: the session cap was reached and this was the longest-idle session.
 * - `stream-overflow`: the client stopped reading its stream and the server's bound for it was hit.
 * - `task-cancelled` / `task-expired`: a task was cancelled (`tasks/cancel`) / reached its TTL.
 * - `shutdown`: the server's signal aborted or `close()` was called.
 */
export type AbortReasonType =
  | 'disconnect'
  | 'client-cancel'
  | 'session-deleted'
  | 'session-expired'
  | 'session-evicted'
  | 'stream-overflow'
  | 'task-cancelled'
  | 'task-expired'
  | 'task-lost'
  | 'shutdown';

/**
 * The `signal.reason` of every abort. It is an Error named `AbortError` so code that passes the
 * signal on (`fetch(url, { signal })`) rejects with something that looks like a normal abort,
 * and it carries `type` so handlers can tell a disconnect from a shutdown.
 */
export class RequestAbortedError extends Error {
  override readonly name = 'AbortError';
  readonly type: AbortReasonType;

  constructor(type: AbortReasonType, message: string = describe(type)) {
    super(message);
    this.type = type;
  }
}

function describe(type: AbortReasonType): string {
  switch (type) {
    case 'disconnect':
      return 'The client disconnected';
    case 'client-cancel':
      return 'The client cancelled the request';
    case 'session-deleted':
      return 'The session was deleted';
    case 'session-expired':
      return 'The session expired';
    case 'session-evicted':
      return 'The session was evicted to make room for a new one';
    case 'stream-overflow':
      return 'The client did not read its stream fast enough';
    case 'task-cancelled':
      return 'The task was cancelled';
    case 'task-expired':
      return 'The task reached its time to live';
    case 'task-lost':
      return 'Another runner took the task over (this one lost its lease)';
    case 'shutdown':
      return 'The server is shutting down';
  }
}

/** The reason type of an aborted signal, if edge-mcp aborted it. */
export function abortReasonType(signal: AbortSignal): AbortReasonType | undefined {
  const reason: unknown = signal.reason;
  return reason instanceof RequestAbortedError ? reason.type : undefined;
}
