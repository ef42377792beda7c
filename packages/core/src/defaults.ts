/**
 * Bounds on what one client can make the server hold or do. Each has a safe default
 * (`DEFAULTS.limits`); exceeding one is answered with a clear error, never a crash.
 */
export interface Limits {
  /** Characters of `initialize`'s `clientInfo` as JSON; more is answered 400 (-32602). */
  readonly maxClientInfoBytes: number;
  /** Characters of `initialize`'s `capabilities` as JSON; more is answered 400 (-32602). */
  readonly maxCapabilitiesBytes: number;
  /** Characters of a `progressToken` (a string token; numbers always pass). */
  readonly maxProgressTokenLength: number;
  /** Characters of a subscribed resource URI. */
  readonly maxUriLength: number;
  /** Resource subscriptions per legacy session, and per listen stream. */
  readonly maxSubscriptions: number;
  /** Requests running at once in one legacy session; more is answered 429. */
  readonly maxInFlightPerSession: number;
  /** Requests running at once in the whole handler (streams included); more is answered 503. */
  readonly maxInFlight: number;
  /**
   * Requests running at once for one principal (its token's principal; without authentication,
   * its client address), its listen streams and legacy GET streams included; more is answered 429
   * with Retry-After, so one client cannot take every slot of `maxInFlight`, nor hold a stream
   * open on every session it opens.
   */
  readonly maxInFlightPerPrincipal: number;
  /**
   * Bytes of request bodies held by the requests running in the whole handler (a call's
   * arguments stay in memory until it ends, a dropped resumable call's through its grace); a body
   * that does not fit is answered 503 with Retry-After, before it is read when its length is
   * declared.
   */
  readonly maxInFlightBytes: number;
  /**
   * The same per principal (its token's principal; without authentication, its client address):
   * more is answered 429 with Retry-After, so one client cannot take the whole budget.
   */
  readonly maxInFlightBytesPerPrincipal: number;
  /** Messages in one 2025-03-26 batch; more is answered 400. */
  readonly maxBatchSize: number;
  /** Server→client requests (elicitation, sampling, roots) waiting at once in one session. */
  readonly maxPendingPerSession: number;
  /** Open SSE connections of one legacy session (its GET stream, answers, resumptions). */
  readonly maxStreamsPerSession: number;
  /** Bytes a stream may queue for a client that does not read, before it is ended. */
  readonly maxQueuedBytes: number;
}

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
  /**
   * `streamAfterMs` on Deno when it is not given (ms): Deno tells a departed client to a handler
   * only once a write fails, so a silent call streams (with keep-alives) after this long.
   */
  denoStreamAfterMs: 1000,
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
  /** Live legacy sessions at most (the longest-idle one is evicted to make room). */
  maxSessions: 10_000,
  /**
   * Live legacy sessions of one principal (its token's, else its client address) at most; its
   * next one evicts its own longest-idle session, never another principal's.
   */
  maxSessionsPerPrincipal: 1000,
  /** Stored events per session (memory event store). */
  maxEventsPerSession: 1000,
  /** Stored event bytes per session (memory event store). */
  maxEventBytesPerSession: 1024 * 1024,
  /** Stored event bytes of all sessions together (memory event store). */
  maxEventBytes: 64 * 1024 * 1024,
  /** Buckets a `MemoryRateLimitStore` keeps at most (full ones are dropped first). */
  maxRateLimitBuckets: 100_000,
  /** The MCP endpoint's path. */
  path: '/mcp',
  tasks: {
    /** How long a task and its result are kept after it was created (ms). */
    ttlMs: 3_600_000,
    /** The longest TTL a legacy client may ask for (ms). */
    maxTtlMs: 86_400_000,
    /** The poll interval suggested to clients (ms). */
    pollIntervalMs: 1000,
    /** Tasks not yet finished per principal (or session). */
    maxActivePerPrincipal: 100,
    /** Runs a task of a tool annotated `idempotentHint: true` gets in all (its `retry`). */
    idempotentAttempts: 3,
    /**
     * Runs a task waiting for input gets in all, whatever its tool's `retry`: re-running up to an
     * answered `input()` is what the input rule allows, but a task that kills its runner must not
     * loop for ever.
     */
    maxInputAttempts: 16,
    /** Tasks a memory store keeps at most. */
    maxTasks: 10_000,
    /** The largest result a task keeps (JSON characters); a larger one fails the task. */
    maxResultBytes: 1024 * 1024,
    /** Results and errors a memory store keeps in all (JSON characters). */
    maxTaskBytes: 64 * 1024 * 1024,
    /** Tasks a memory store keeps per principal (or session). */
    maxTasksPerPrincipal: 1000,
    /** Results and errors a memory store keeps per principal (or session), in JSON characters. */
    maxTaskBytesPerPrincipal: 16 * 1024 * 1024,
  },
  /** The `cors` option. */
  cors: {
    /** How long a browser may reuse a preflight's answer (`Access-Control-Max-Age`, s). */
    maxAgeSeconds: 600,
  },
  /** `jwtVerifier()` of `@edge-mcp/core/jwt`. */
  jwt: {
    /** Clock skew allowed on `exp`, `nbf` and `iat` (s). */
    clockToleranceSeconds: 5,
    jwks: {
      /** Timeout of each metadata or key-set request (ms). */
      timeoutMs: 5000,
      /** How long fetched keys are used before they are fetched again (ms). */
      cacheMaxAgeMs: 600_000,
      /** How long keys past their age still serve while the key set cannot be fetched (ms). */
      staleIfErrorMs: 3_600_000,
      /** The least time between two fetches of the key set (an unknown `kid` refetches) (ms). */
      cooldownMs: 30_000,
    },
    /** The verified-token cache. */
    cache: {
      /** Tokens kept at most. */
      maxEntries: 1000,
      /** How long after its check a token is accepted again unchecked (ms). */
      maxAgeMs: 60_000,
    },
  },
  limits: {
    maxClientInfoBytes: 4 * 1024,
    maxCapabilitiesBytes: 16 * 1024,
    maxProgressTokenLength: 256,
    maxUriLength: 2048,
    maxSubscriptions: 1000,
    maxInFlightPerSession: 100,
    maxInFlight: 10_000,
    maxInFlightPerPrincipal: 1000,
    maxInFlightBytes: 64 * 1024 * 1024,
    maxInFlightBytesPerPrincipal: 16 * 1024 * 1024,
    maxBatchSize: 100,
    maxPendingPerSession: 100,
    maxStreamsPerSession: 16,
    maxQueuedBytes: 1024 * 1024,
  } satisfies Limits,
} as const;
