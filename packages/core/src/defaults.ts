/**
 * Every default of the handler, the session managers and the stores, in one place: the code
 * reads them from here, the JSDoc of each option names the same value, and a test checks the
 * README's option tables against this object.
 */
export const DEFAULTS = {
  /** Largest accepted request body (bytes). */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Interval of SSE comment keep-alives (ms). */
  keepAliveMs: 15_000,
  /** How long `close()` waits for handlers that ignore their signal (ms). */
  shutdownTimeoutMs: 10_000,
  /** Lifetime of an input-required `requestState` (ms). */
  requestStateTtlMs: 600_000,
  /** Cache hint on list, read and discover results (ms). */
  cacheTtlMs: 0,
  /** Cache scope hint on list, read and discover results. */
  cacheScope: 'private',
  /** Items per page of the list methods. */
  pageSize: 100,
  /** Grace a handler keeps after its resumable legacy stream dropped (ms). */
  disconnectGraceMs: 30_000,
  /** SSE `retry` hint of the 2025-11-25 priming event (ms). */
  retryMs: 1000,
  /** A legacy session with nothing in flight for this long is closed (ms). */
  idleTimeoutMs: 600_000,
  /** Live legacy sessions at most. */
  maxSessions: 10_000,
  /** Stored events per session (memory event store). */
  maxEventsPerSession: 1000,
  /** The MCP endpoint's path. */
  path: '/mcp',
} as const;
