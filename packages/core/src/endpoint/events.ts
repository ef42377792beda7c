import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Implementation } from '../server/types.ts';

/** One finished request, as the request log sees it. */
export interface RequestEvent {
  id: string | number;
  method: string;
  /** Tool, prompt or resource the request named. */
  name: string | undefined;
  protocolVersion: string;
  /** Legacy session the request belongs to. */
  sessionId: string | undefined;
  outcome: 'ok' | 'error' | 'cancelled';
  /** Why it was cancelled, when `outcome` is `cancelled`. */
  reason: AbortReasonType | undefined;
  /** JSON-RPC error code, when `outcome` is `error`. */
  errorCode: number | undefined;
  /** Milliseconds from dispatch until the handler settled. */
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
