import { DEFAULTS } from '../defaults.ts';

/** What the handler counts for `stats()`; the streams and exchanges update it. */
export interface HandlerCounters {
  /** Open SSE connections (legacy streams and 2026-07-28 streamed answers). */
  openStreams: number;
  /** Legacy streams resumed with Last-Event-ID. */
  resumed: number;
  /** Streams ended because their client stopped reading (`stream-overflow`). */
  overflowed: number;
  /** Progress and log notifications coalesced or dropped for slow readers. */
  dropped: number;
  /** Requests refused by a budget (limits). */
  rejected: number;
  /** Sessions evicted to make room (`session-evicted`). */
  evicted: number;
}

/** What every SSE answer needs of the handler; built once, shared by every stream. */
export interface StreamSettings {
  /** Interval of keep-alive comments; 0 turns them off. */
  readonly keepAliveMs: number;
  /** Answer with a stream once a request has run this long (undefined: only when needed). */
  readonly streamAfterMs: number | undefined;
  /** Bytes a stream may queue for a client that does not read before it is ended. */
  readonly maxQueuedBytes: number;
  readonly counters: HandlerCounters;
}

/**
 * The `streamAfterMs` a runtime needs when none is given, read once per handler: Deno notices a
 * client that left only when a write to it fails, so a call that writes nothing must stream. By
 * the Web-standard `navigator.userAgent` (`Deno/2.x`); nothing elsewhere.
 */
export function runtimeStreamAfterMs(): number | undefined {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof agent === 'string' && agent.startsWith('Deno/')
    ? DEFAULTS.denoStreamAfterMs
    : undefined;
}
