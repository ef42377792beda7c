import { DEFAULTS, type Limits } from '../defaults.ts';
import type { CorsOptions } from '../http/cors.ts';
import type { TrustProxy } from '../http/forwarded.ts';
import type { RateLimitOptions } from '../http/rate-limit.ts';
import { optionKeys } from '../schema/option-keys.ts';
import type { AuthOptions } from '../server/resource-server.ts';
import type { RequestEvent, SessionEvent } from './events.ts';
import type { Instrumentation } from './instrumentation.ts';

export type { HandlerStats, RefusalReason, RequestEvent, SessionEvent } from './events.ts';

import type { ClusterBus } from '../sessions/cluster.ts';
import type { EventStore } from '../sessions/event-store.ts';
import type { SessionManager } from '../sessions/session-manager.ts';
import type { TaskOptions } from '../tasks/engine.ts';

/** Options of `createMcpHandler()`; every default is in `DEFAULTS`. */
export interface McpHandlerOptions {
  /** Server-wide shutdown: aborting it is the same as calling `close()`. */
  signal?: AbortSignal;
  /**
   * The endpoint's path: `fetch()` answers 404 for any other. A framework that routes itself
   * (the Hono `mcp()` entry, the Cloudflare session Worker) bypasses this check, so the handler
   * can be mounted anywhere there. `false` serves every path.
   * @default '/mcp'
   */
  path?: string | false;
  /**
   * Host names (or `host:port`) accepted besides loopback names; `'*'` accepts any.
   * @default [] — only localhost, 127.0.0.1 and [::1]
   */
  allowedHosts?: string[] | '*';
  /**
   * Origins (`scheme://host[:port]`) accepted besides loopback origins; `'*'` accepts any.
   * Requests without an Origin header (non-browser clients) are not affected.
   * @default [] — only origins whose host is a loopback name
   */
  allowedOrigins?: string[] | '*';
  /**
   * The reverse proxies in front of the server whose `Forwarded` / `X-Forwarded-For`, `-Host`
   * and `-Proto` headers count: a hop count (`1` for one nginx or load balancer), or the proxies'
   * addresses and CIDR ranges (`['10.0.0.0/8']`; also `'loopback'`, `'private'`,
   * `'linklocal'`). They then give the client address (rate limits, quotas, `ctx.request`), the
   * host the Host/Origin guard checks, and the URL in `ctx.request`; the same headers from anyone
   * else are ignored. The forwarded host must still be allowed (`allowedHosts`).
   * @default undefined (no proxy trusted: the connection's peer and the Host header count)
   */
  trustProxy?: TrustProxy;
  /**
   * OAuth 2.1 resource server: every request needs a valid bearer token (or a principal an
   * integration vouched for); 401 with a `WWW-Authenticate` pointing at the Protected Resource
   * Metadata, which the handler serves. Sessions and input-required rounds are bound to their
   * principal. @default undefined (no authentication)
   */
  auth?: AuthOptions;
  /**
   * CORS for browser clients on other origins (preflights, exposed MCP headers); those origins
   * pass the Origin check too. @default undefined (no CORS headers; browsers on other origins fail)
   */
  cors?: CorsOptions;
  /** Largest accepted request body, enforced while reading (413 above it). @default 4 MiB */
  maxBodyBytes?: number;
  /**
   * What one client may make the server hold or do: sizes of what sessions keep, requests in
   * flight, pending server→client requests, streams and the bytes a slow reader may queue. Each
   * value falls back to its default; see `Limits` and `DEFAULTS.limits`.
   * @default DEFAULTS.limits
   */
  limits?: Partial<Limits>;
  /** Interval of SSE comment keep-alives on open streams; 0 turns them off. @default 15000 */
  keepAliveMs?: number;
  /**
   * Answer with an SSE stream (and its keep-alives) once a request has run this long without
   * finishing. Needed where the runtime learns of a departed client only when a write fails
   * (workerd: a client that leaves is then noticed within `keepAliveMs`), and useful behind proxies
   * that cut quiet connections. `undefined` streams only when the handler sends a notification.
   * On Deno, which notices a departed client only when a write fails, it is 1000 unless given.
   * @default undefined; 1000 on Deno (the Cloudflare adapter's WORKERD_HANDLER_OPTIONS: 0)
   */
  streamAfterMs?: number;
  /**
   * How long `close()` waits for handlers that ignore their aborted signal before it resolves anyway.
   * @default 10000
   */
  shutdownTimeoutMs?: number;
  /** Input-required (MRTR) `requestState` signing. */
  requestState?: {
    /** HMAC key; set the same secret on every instance behind one URL. @default a random key per handler */
    secret?: string | Uint8Array;
    /** Lifetime of a state. @default 600000 (10 minutes) */
    ttlMs?: number;
    /**
     * Accept each state once: a second request with the same `requestState` is answered -32602
     * (a retry of a round must then start the round again). Remembered by this handler only, up
     * to 100,000 states within their lifetime; several instances do not share what they saw.
     * @default false (a state may be sent again within its lifetime, by the same principal, for
     * the same request)
     */
    singleUse?: boolean;
  };
  /** Cache hints on list, read and discover results (2026-07-28). @default { ttlMs: 0, cacheScope: 'private' } */
  cache?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
  /** Items per page of tools/list, prompts/list, resources/list, resources/templates/list. @default 100 */
  pageSize?: number;
  /**
   * Serve the legacy revisions (2025-03-26, 2025-06-18, 2025-11-25) next to 2026-07-28 on the same
   * endpoint. With `false`, legacy requests get 400 (-32022 naming 2026-07-28) and GET/DELETE 405.
   * @default true
   */
  legacy?: boolean;
  /**
   * Where legacy sessions live. `false` serves the legacy revisions without sessions (no
   * Mcp-Session-Id, no GET stream, no server→client requests).
   * @default new SessionManager() — in this process, 10 min idle timeout, 10,000 sessions at most
   */
  sessions?: SessionManager | false;
  /**
   * Stores legacy SSE events so a dropped stream can be resumed with Last-Event-ID. `false` turns
   * resumption off (a dropped request stream then aborts its handler at once).
   * @default new MemoryEventStore() — 1,000 events per session
   */
  eventStore?: EventStore | false;
  /**
   * Carries server-wide events between the instances of a deployment: `notifyListChanged()` and
   * `notifyResourceUpdated()` on one instance reach the listen streams and legacy GET streams of
   * every instance. Give it with a session manager and event store that span instances (e.g.
   * `@edge-mcp/redis`). @default undefined (events stay in this process)
   */
  cluster?: ClusterBus;
  /**
   * Tasks: tools registered with `taskSupport` run detached from their request when the client
   * asks (2026-07-28's `io.modelcontextprotocol/tasks` extension, 2025-11-25's `params.task`),
   * under the server (a client leaving does not cancel them; `tasks/cancel`, their TTL and
   * shutdown do). `false` turns tasks off: such tools then run as plain calls.
   * @default { store: new MemoryTaskStore(), ttlMs: 3600000, pollIntervalMs: 1000, maxActivePerPrincipal: 100 }
   */
  tasks?: TaskOptions | false;
  /**
   * Legacy disconnect policy: when a session request's SSE stream drops and can be resumed, its
   * handler keeps running this long (output stored for replay) and is aborted with `disconnect`
   * unless the client resumes. Streams that cannot be resumed abort at once. 0 aborts every drop.
   * @default 30000
   */
  disconnectGraceMs?: number;
  /** SSE `retry` hint sent with the 2025-11-25 priming event. @default 1000 */
  retryMs?: number;
  /**
   * Called once by `close()` after every handler settled and every session ended (or the
   * shutdown timeout passed), before it resolves: close what the handler's stores are built on
   * (a Redis backend's `handlerOptions()` sets it to close its connections). @default undefined
   */
  onClose?: () => void | Promise<void>;
  /** A legacy session opened. Must not throw. */
  onSessionOpen?: (event: SessionEvent) => void;
  /** A legacy session closed (DELETE, idle timeout, shutdown, operator), with the reason. Must not throw. */
  onSessionClose?: (event: SessionEvent) => void;
  /**
   * Token-bucket rate limits per principal, per tool and in total; a request over one is answered
   * 429 with `Retry-After` (JSON-RPC -32000, `data.retryAfterMs`). Buckets live in memory unless
   * `store` says otherwise (`@edge-mcp/redis` shares them across instances).
   * @default undefined (no rate limit)
   */
  rateLimit?: RateLimitOptions;
  /** Called once per request when its handler settled (the request log). Must not throw. */
  onRequest?: (event: RequestEvent) => void;
  /**
   * Observes requests, sessions and the live stats, e.g. `openTelemetry()` from
   * `@edge-mcp/core/otel` (spans and metrics after OpenTelemetry's MCP conventions).
   * @default undefined (nothing is measured)
   */
  instrumentation?: Instrumentation;
}

/** Options of `handler.close()`. */
export interface CloseOptions {
  /**
   * Drain first: for up to this many milliseconds new requests get 503 with Retry-After (a
   * balancer retries them elsewhere), GET and listen streams end so their clients reconnect
   * elsewhere, and calls and tasks in flight may finish; then what is left is aborted (reason
   * `shutdown`). Answers to the server's own requests and cancellations still get through.
   * @default 0 (no drain: abort everything at once)
   */
  graceMs?: number;
}

/** The names `createMcpHandler()` accepts; anything else is refused (see `checkOptionKeys`). */
export const HANDLER_OPTION_KEYS = optionKeys<McpHandlerOptions>()([
  'signal',
  'path',
  'allowedHosts',
  'allowedOrigins',
  'trustProxy',
  'auth',
  'cors',
  'maxBodyBytes',
  'limits',
  'keepAliveMs',
  'streamAfterMs',
  'shutdownTimeoutMs',
  'requestState',
  'cache',
  'pageSize',
  'legacy',
  'sessions',
  'eventStore',
  'cluster',
  'tasks',
  'disconnectGraceMs',
  'retryMs',
  'onClose',
  'onSessionOpen',
  'onSessionClose',
  'onRequest',
  'instrumentation',
  'rateLimit',
]);

/**
 * The names of the handler's nested options that are plain objects of ours, checked the same
 * way. Stores, managers, buses and instrumentation are the caller's objects (class instances,
 * often with members of their own), so their keys are not checked.
 */
export const NESTED_OPTION_KEYS = {
  // DEFAULTS.limits satisfies Limits, so it names every limit and nothing else.
  limits: Object.keys(DEFAULTS.limits) as (keyof Limits)[],
  requestState: optionKeys<NonNullable<McpHandlerOptions['requestState']>>()([
    'secret',
    'ttlMs',
    'singleUse',
  ]),
  cache: optionKeys<NonNullable<McpHandlerOptions['cache']>>()(['ttlMs', 'cacheScope']),
  tasks: optionKeys<TaskOptions>()([
    'store',
    'ttlMs',
    'maxTtlMs',
    'pollIntervalMs',
    'maxActivePerPrincipal',
    'maxResultBytes',
    'run',
    'maxRunning',
    'maxInputAttempts',
    'onRun',
  ]),
  cors: optionKeys<CorsOptions>()(['origins', 'maxAgeSeconds']),
  rateLimit: optionKeys<RateLimitOptions>()(['perPrincipal', 'perTool', 'total', 'store']),
  auth: optionKeys<AuthOptions>()([
    'verify',
    'resource',
    'authorizationServers',
    'scopesSupported',
    'resourceName',
    'hideUnauthorized',
  ]),
} as const satisfies { [K in keyof McpHandlerOptions]?: readonly string[] };
