import { type EventStore, MemoryEventStore } from '../legacy/event-store.ts';
import type { LegacyConfig } from '../legacy/exchange.ts';
import { fanOut } from '../legacy/fan-out.ts';
import type { Session } from '../legacy/session.ts';
import { MemorySessionManager, type SessionManager } from '../legacy/session-manager.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import { RequestStateSigner } from '../modern/request-state.ts';
import { ErrorCode, LEGACY_VERSIONS, META, MODERN_VERSION } from '../protocol/constants.ts';
import { errorMessage, type JsonObject } from '../protocol/jsonrpc.ts';
import type { McpServer } from '../server/server.ts';
import type { ExchangeBase } from './exchange-base.ts';
import { type HostPolicy, hostPolicy } from './guards.ts';
import type { IncomingRequest } from './incoming.ts';
import type { HandlerStats, McpHandlerOptions, RequestEvent, SessionEvent } from './options.ts';
import { type Answer, toResponse } from './responses.ts';
import { route } from './route.ts';

export interface McpHandler {
  /** The endpoint: `request.signal` is the cancellation token of the HTTP exchange. */
  fetch(request: Request): Promise<Response>;
  /**
   * The same endpoint for adapters that write answers themselves: takes any `IncomingRequest`
   * (a `Request` is one) and gives complete answers as a `Reply` (status, headers, text) instead
   * of a `Response`; streamed answers stay `Response`s.
   */
  handle(request: IncomingRequest): Promise<Answer>;
  /**
   * Shutdown: ends every session (their `onClose` hooks run), aborts every in-flight handler with
   * reason `shutdown`, ends every open stream (listen streams get their completing result first)
   * and resolves once every handler settled, or after `shutdownTimeoutMs`. Later requests get 503.
   */
  close(): Promise<void>;
  /**
   * Aborts (reason `shutdown`) when the handler closes. Created on first read; on workerd read
   * `closed` instead (a signal made while serving one request cannot be used by another).
   */
  readonly signal: AbortSignal;
  /** True once `close()` was called (or the `signal` option aborted). */
  readonly closed: boolean;
  /** In-flight requests (open listen streams included). */
  readonly inFlight: number;
  /** Live counters: sessions, open streams, reaped and resumed so far. */
  stats(): HandlerStats;
}

/** Shared state of one handler, built once; every request reads it, none copies it. */
export class HandlerCore {
  readonly server: McpServer;
  readonly root = new Scope();
  readonly signer: RequestStateSigner;
  readonly policy: HostPolicy;
  readonly maxBodyBytes: number;
  readonly keepAliveMs: number;
  readonly streamAfterMs: number | undefined;
  readonly shutdownTimeoutMs: number;
  readonly pageSize: number;
  readonly cache: { ttlMs: number; cacheScope: 'public' | 'private' };
  readonly supported: readonly string[];
  readonly legacyEnabled: boolean;
  readonly sessions: SessionManager | undefined;
  readonly legacy: LegacyConfig;
  /** `Allow` header of 405 answers. */
  readonly allow: string;
  /** `_meta` serverInfo of every modern result, `serverInfo` of initialize (no instructions). */
  readonly serverInfo: JsonObject;
  /** `"_meta":{serverInfo}` serialized once, spliced into modern results. */
  readonly serverInfoMeta: string;
  readonly #options: McpHandlerOptions;
  readonly #eventStore: EventStore | undefined;
  inFlight = 0;
  opened = 0;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  /** Undoes what the constructor attached outside the handler (server listeners, the signal). */
  #detach: Array<() => void> = [];

  constructor(server: McpServer, options: McpHandlerOptions) {
    this.server = server;
    this.#options = options;
    this.signer = new RequestStateSigner(
      options.requestState?.secret,
      options.requestState?.ttlMs ?? 600_000,
    );
    this.policy = hostPolicy(options.allowedHosts, options.allowedOrigins);
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.streamAfterMs = options.streamAfterMs;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
    this.pageSize = options.pageSize ?? 100;
    this.cache = {
      ttlMs: options.cache?.ttlMs ?? 0,
      cacheScope: options.cache?.cacheScope ?? 'private',
    };
    const { instructions: _, ...info } = server.info;
    this.serverInfo = info;
    this.serverInfoMeta = `"_meta":${JSON.stringify({ [META.serverInfo]: info })}`;
    this.legacyEnabled = options.legacy !== false;
    this.supported = this.legacyEnabled ? [MODERN_VERSION, ...LEGACY_VERSIONS] : [MODERN_VERSION];
    this.sessions =
      !this.legacyEnabled || options.sessions === false
        ? undefined
        : (options.sessions ?? new MemorySessionManager());
    this.#eventStore =
      this.sessions && options.eventStore !== false
        ? (options.eventStore ?? new MemoryEventStore())
        : undefined;
    this.allow = this.sessions ? 'GET, POST, DELETE' : 'POST';
    this.legacy = {
      keepAliveMs: this.keepAliveMs,
      eventStore: this.#eventStore,
      retryMs: options.retryMs ?? 1000,
      graceMs: options.disconnectGraceMs ?? 30_000,
      streamAfterMs: options.streamAfterMs,
      counters: { openStreams: 0, resumed: 0 },
    };
    this.sessions?.bind(this.root, (session, reason) => this.#sessionClosed(session, reason));
    if (this.sessions) this.#detach.push(fanOut(server, this.sessions));
    const signal = options.signal;
    if (signal?.aborted) void this.close();
    else if (signal) {
      const onAbort = () => void this.close();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detach.push(() => signal.removeEventListener('abort', onAbort));
    }
  }

  stats(): HandlerStats {
    return {
      inFlight: this.inFlight,
      sessions: this.sessions?.size ?? 0,
      sessionsOpened: this.opened,
      openStreams: this.legacy.counters.openStreams,
      reaped: this.sessions?.reaped ?? 0,
      resumed: this.legacy.counters.resumed,
    };
  }

  sessionOpened(session: Session, request: IncomingRequest): void {
    this.opened++;
    if (!this.#options.onSessionOpen) return;
    this.#emit(this.#options.onSessionOpen, {
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      reason: undefined,
      clientInfo: session.clientInfo,
      userAgent: request.headers.get('user-agent') ?? undefined,
    });
  }

  #sessionClosed(session: Session, reason: AbortReasonType): void {
    try {
      // A custom store may fail; its session is gone either way, and its rejection must not be
      // left unhandled (that ends a Node process).
      const dropped = this.#eventStore?.dropSession(session.id);
      if (dropped instanceof Promise) dropped.catch(ignore);
    } catch {}
    this.#emit(this.#options.onSessionClose, {
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      reason,
      clientInfo: session.clientInfo,
      userAgent: undefined,
    });
  }

  #emit(hook: ((event: SessionEvent) => void) | undefined, event: SessionEvent): void {
    try {
      hook?.(event);
    } catch {
      // Observers must not break the server.
    }
  }

  /**
   * Accounts for `exchange` until `work` (which replies through the exchange) settles, then
   * reports it. Work that throws unexpectedly is answered with -32603 rather than left hanging.
   */
  async run(
    exchange: ExchangeBase,
    work: Promise<void>,
    protocolVersion: string,
    sessionId?: string,
  ): Promise<void> {
    this.inFlight++;
    try {
      await work;
    } catch {
      exchange.errorCode = ErrorCode.InternalError;
      exchange.reply(
        errorMessage(exchange.id, { code: ErrorCode.InternalError, message: 'Internal error' }),
      );
    } finally {
      exchange.dispose();
      this.inFlight--;
      if (this.#options.onRequest) this.#report(exchange, protocolVersion, sessionId);
      if (this.inFlight === 0) this.#drained?.();
    }
  }

  #report(exchange: ExchangeBase, protocolVersion: string, sessionId: string | undefined): void {
    const cancelled = exchange.aborted && exchange.errorCode === undefined;
    try {
      this.#options.onRequest?.({
        id: exchange.id,
        method: exchange.method,
        name: exchange.name,
        protocolVersion,
        sessionId,
        outcome: cancelled ? 'cancelled' : exchange.errorCode === undefined ? 'ok' : 'error',
        reason: cancelled ? exchange.reason : undefined,
        errorCode: exchange.errorCode,
        ms: Math.round((performance.now() - exchange.started) * 100) / 100,
      } satisfies RequestEvent);
    } catch {
      // A broken log hook must not break the server.
    }
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    for (const undo of this.#detach) undo();
    this.#detach = [];
    this.sessions?.closeAll('shutdown');
    this.root.abort('shutdown');
    this.#closing = new Promise<void>((resolve) => {
      if (this.inFlight === 0) return resolve();
      const timer = setTimeout(resolve, this.shutdownTimeoutMs);
      (timer as { unref?: () => void }).unref?.();
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    return this.#closing;
  }

  /** The Web entry: every answer as a `Response`. */
  async fetch(request: IncomingRequest): Promise<Response> {
    return toResponse(await route(this, request));
  }

  /** The adapters' entry: a complete answer stays a `Reply` (plain data) for a direct write. */
  handle(request: IncomingRequest): Promise<Answer> {
    return route(this, request);
  }
}

/** Builds the MCP endpoint for `server` once; call `fetch` per request. */
export function createMcpHandler(server: McpServer, options: McpHandlerOptions = {}): McpHandler {
  const core = new HandlerCore(server, options);
  return {
    fetch: (request) => core.fetch(request),
    handle: (request) => core.handle(request),
    close: () => core.close(),
    get signal() {
      return core.root.signal;
    },
    get closed() {
      return core.root.aborted;
    },
    get inFlight() {
      return core.inFlight;
    },
    stats: () => core.stats(),
  };
}

function ignore(): void {}
