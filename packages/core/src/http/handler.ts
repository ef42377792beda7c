import { handleBatch } from '../legacy/batch.ts';
import { handleLegacy } from '../legacy/dispatch.ts';
import { type EventStore, MemoryEventStore } from '../legacy/event-store.ts';
import type { LegacyConfig } from '../legacy/exchange.ts';
import { fanOut } from '../legacy/fan-out.ts';
import { handleDelete, handleGet } from '../legacy/get-delete.ts';
import type { Session } from '../legacy/session.ts';
import { MemorySessionManager, type SessionManager } from '../legacy/session-manager.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import { handleModern } from '../modern/dispatch.ts';
import { RequestStateSigner } from '../modern/request-state.ts';
import { ErrorCode, HEADER, LEGACY_VERSIONS, META, MODERN_VERSION } from '../protocol/constants.ts';
import {
  classify,
  errorMessage,
  isObject,
  type JsonObject,
  type RequestId,
} from '../protocol/jsonrpc.ts';
import type { McpServer } from '../server/server.ts';
import { BodyTooLargeError, readBody } from './body.ts';
import {
  acceptsBoth,
  checkHost,
  type HostPolicy,
  hostPolicy,
  isJsonContentType,
} from './guards.ts';
import type { HandlerStats, McpHandlerOptions, RequestEvent, SessionEvent } from './options.ts';
import { accepted, errorResponse, methodNotAllowed } from './responses.ts';

export interface McpHandler {
  /** The endpoint: `request.signal` is the cancellation token of the HTTP exchange. */
  fetch(request: Request): Promise<Response>;
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

/** What `run` needs of an exchange of either era. */
interface Tracked {
  readonly id: RequestId;
  readonly method: string;
  readonly name: string | undefined;
  readonly started: number;
  readonly aborted: boolean;
  readonly reason: AbortReasonType | undefined;
  errorCode: number | undefined;
  reply(json: string): void;
  dispose(): void;
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
    if (signal) {
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

  sessionOpened(session: Session, request: Request): void {
    this.opened++;
    this.#emit(this.#options.onSessionOpen, {
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      reason: undefined,
      clientInfo: session.clientInfo,
      userAgent: request.headers.get('user-agent') ?? undefined,
    });
  }

  #sessionClosed(session: Session, reason: AbortReasonType): void {
    void this.#eventStore?.dropSession(session.id);
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
    exchange: Tracked,
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

  #report(exchange: Tracked, protocolVersion: string, sessionId: string | undefined): void {
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

  async fetch(request: Request): Promise<Response> {
    if (this.root.aborted)
      return errorResponse(503, -32603, 'The server is shutting down', undefined, undefined, {
        'retry-after': '1',
      });
    const refused = checkHost(request, this.policy);
    if (refused) return errorResponse(403, -32600, refused);
    const method = request.method;
    if (method === 'GET')
      return this.legacyEnabled ? handleGet(this, request) : methodNotAllowed(this.allow);
    if (method === 'DELETE')
      return this.legacyEnabled ? handleDelete(this, request) : methodNotAllowed(this.allow);
    if (method !== 'POST') return methodNotAllowed(this.allow);
    if (!isJsonContentType(request.headers.get('content-type')))
      return errorResponse(415, -32600, 'Content-Type must be application/json');
    if (!acceptsBoth(request.headers.get('accept')))
      return errorResponse(
        406,
        -32600,
        'Accept must list both application/json and text/event-stream',
      );
    let text: string;
    try {
      text = await readBody(request, this.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return errorResponse(413, -32600, error.message);
      return errorResponse(400, -32700, 'Could not read the request body');
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return errorResponse(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    }
    const modernHeader = request.headers.get(HEADER.protocolVersion)?.trim() === MODERN_VERSION;
    if (Array.isArray(value)) {
      if (this.legacyEnabled && !modernHeader) return handleBatch(this, request, value);
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Batches are not supported by this protocol revision',
      );
    }
    const message = classify(value);
    if (!message)
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'The body is not a JSON-RPC 2.0 request or notification',
      );
    const params = message.kind === 'response' ? undefined : message.message.params;
    const meta = isObject(params?._meta) ? params._meta : undefined;
    // Modern: the request says so in `_meta` (or, having forgotten `_meta`, in the header).
    if ((meta && META.protocolVersion in meta) || modernHeader || !this.legacyEnabled) {
      if (message.kind === 'response')
        return errorResponse(
          400,
          ErrorCode.InvalidRequest,
          'Clients must not send JSON-RPC responses',
        );
      // The modern era defines no client notifications over HTTP; accept and ignore them.
      if (message.kind === 'notification') return accepted();
      if (!meta && !modernHeader)
        return this.#modernOnly(request, message.message.id, message.message);
      return handleModern(this, request, message.message, meta ?? {});
    }
    return handleLegacy(this, request, message);
  }

  /** A legacy request to a handler that serves 2026-07-28 only: name the versions it serves. */
  #modernOnly(
    request: Request,
    id: RequestId,
    rpc: { method: string; params?: JsonObject },
  ): Response {
    const requested =
      rpc.method === 'initialize'
        ? rpc.params?.protocolVersion
        : (request.headers.get(HEADER.protocolVersion) ?? '2025-03-26');
    return errorResponse(
      400,
      ErrorCode.UnsupportedProtocolVersion,
      'Unsupported protocol version: this server speaks 2026-07-28',
      id,
      {
        supported: this.supported,
        requested,
      },
    );
  }
}

/** Builds the MCP endpoint for `server` once; call `fetch` per request. */
export function createMcpHandler(server: McpServer, options: McpHandlerOptions = {}): McpHandler {
  const core = new HandlerCore(server, options);
  return {
    fetch: (request) => core.fetch(request),
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
