import type { RefusalReason } from '../http/refusal.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Implementation } from '../server/types.ts';

export type { RefusalReason } from '../http/refusal.ts';

/**
 * One finished request, as the request log sees it: a method that ran (`ok`, `error`,
 * `cancelled`), or a request refused before its method ran (`refused`: a 401, a 403 for Host or
 * Origin, a 404 for a path or session, a budget's 429 or 503, …), with the HTTP status and why.
 */
export interface RequestEvent {
  /** The JSON-RPC id; `undefined` for a refusal before the message was read, or a notification. */
  id: string | number | undefined;
  /**
   * The JSON-RPC method; for a request refused before its message was read, the HTTP method
   * (`POST`, `GET`, `DELETE`, …).
   */
  method: string;
  /** Tool, prompt or resource the request named. */
  name: string | undefined;
  /** The revision the request spoke; `undefined` for a refusal that named none. */
  protocolVersion: string | undefined;
  /** Legacy session the request belongs to (for a refusal, the id it presented). */
  sessionId: string | undefined;
  outcome: 'ok' | 'error' | 'cancelled' | 'refused';
  /** Why it was cancelled (`outcome: 'cancelled'`) or refused (`outcome: 'refused'`). */
  reason: AbortReasonType | RefusalReason | undefined;
  /** The HTTP status of a refusal. */
  status: number | undefined;
  /** JSON-RPC error code, when `outcome` is `error` or `refused`. */
  errorCode: number | undefined;
  /**
   * What failed inside when the client was told only that something did (`Internal error`, or a
   * tool's "failed with an internal error"): the thrown error's name and message, for the log.
   */
  error: string | undefined;
  /** Milliseconds from dispatch until the handler settled; 0 for a refusal (nothing ran). */
  ms: number;
}

/** A legacy session opened or closed. */
export interface SessionEvent {
  sessionId: string;
  protocolVersion: string;
  /** Why it closed (`onSessionClose` only). */
  reason: AbortReasonType | undefined;
  clientInfo: Implementation | undefined;
  userAgent: string | undefined;
}

/** What `handler.stats()` counts (live values, and totals since the handler was built). */
export interface HandlerStats {
  inFlight: number;
  /** Bytes of request bodies held by the requests running (see `limits.maxInFlightBytes`). */
  inFlightBytes: number;
  sessions: number;
  sessionsOpened: number;
  /** Open SSE connections: legacy GET streams, resumptions and streamed answers of both eras. */
  openStreams: number;
  /** Sessions ended by the idle timeout. */
  reaped: number;
  /** Sessions evicted (the longest-idle one) to make room under the session cap. */
  evicted: number;
  /** Streams resumed with Last-Event-ID. */
  resumed: number;
  /** Streams ended because their client stopped reading (`stream-overflow`). */
  overflowed: number;
  /** Progress and log notifications coalesced or dropped for clients that read slowly. */
  dropped: number;
  /** Requests refused by a budget of `limits` (429, 503, 400). */
  rejected: number;
  /** Task handlers running now (tasks in `working` or `input_required` on this instance). */
  tasks: number;
}
