import { Scope } from '../lifecycle/scope.ts';
import { handleModern } from '../modern/dispatch.ts';
import { RequestStateSigner } from '../modern/request-state.ts';
import { ErrorCode, HEADER, LEGACY_VERSIONS, META, MODERN_VERSION } from '../protocol/constants.ts';
import { classify, errorMessage, isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import type { McpServer } from '../server/server.ts';
import { BodyTooLargeError, readBody } from './body.ts';
import type { Exchange } from './exchange.ts';
import {
  acceptsBoth,
  checkHost,
  type HostPolicy,
  hostPolicy,
  isJsonContentType,
} from './guards.ts';
import type { McpHandlerOptions, RequestEvent } from './options.ts';
import { accepted, errorResponse, methodNotAllowed } from './responses.ts';

export interface McpHandler {
  /** The endpoint: `request.signal` is the cancellation token of the HTTP exchange. */
  fetch(request: Request): Promise<Response>;
  /**
   * Aborts every in-flight handler with reason `shutdown`, ends every open stream (listen streams
   * get their completing result first) and resolves once every handler settled, or after
   * `shutdownTimeoutMs`. Later requests get 503.
   */
  close(): Promise<void>;
  /** Aborts (reason `shutdown`) when the handler closes. */
  readonly signal: AbortSignal;
  /** In-flight requests (open streams included). */
  readonly inFlight: number;
}

/** Shared state of one handler, built once; every request reads it, none copies it. */
export class HandlerCore {
  readonly server: McpServer;
  readonly root = new Scope();
  readonly signer: RequestStateSigner;
  readonly policy: HostPolicy;
  readonly maxBodyBytes: number;
  readonly keepAliveMs: number;
  readonly shutdownTimeoutMs: number;
  readonly pageSize: number;
  readonly cache: { ttlMs: number; cacheScope: 'public' | 'private' };
  readonly supported: readonly string[] = [MODERN_VERSION];
  readonly onRequest: ((event: RequestEvent) => void) | undefined;
  /** `_meta` serverInfo of every modern result (the server info without its instructions). */
  readonly serverInfo: JsonObject;
  inFlight = 0;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(server: McpServer, options: McpHandlerOptions) {
    this.server = server;
    this.signer = new RequestStateSigner(
      options.requestState?.secret,
      options.requestState?.ttlMs ?? 600_000,
    );
    this.policy = hostPolicy(options.allowedHosts, options.allowedOrigins);
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
    this.pageSize = options.pageSize ?? 100;
    this.cache = {
      ttlMs: options.cache?.ttlMs ?? 0,
      cacheScope: options.cache?.cacheScope ?? 'private',
    };
    this.onRequest = options.onRequest;
    const { instructions: _, ...info } = server.info;
    this.serverInfo = info;
    if (options.signal)
      options.signal.addEventListener('abort', () => void this.close(), { once: true });
  }

  /**
   * Accounts for `exchange` until `work` (which replies through the exchange) settles, then
   * reports it. Work that throws unexpectedly is answered with -32603 rather than left hanging.
   */
  async run(exchange: Exchange, work: Promise<void>, protocolVersion: string): Promise<void> {
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
      if (this.onRequest) this.#report(exchange, protocolVersion);
      if (this.inFlight === 0) this.#drained?.();
    }
  }

  #report(exchange: Exchange, protocolVersion: string): void {
    const cancelled = exchange.aborted && exchange.errorCode === undefined;
    try {
      this.onRequest?.({
        id: exchange.id,
        method: exchange.method,
        name: exchange.name,
        protocolVersion,
        outcome: cancelled ? 'cancelled' : exchange.errorCode === undefined ? 'ok' : 'error',
        reason: cancelled ? exchange.reason : undefined,
        errorCode: exchange.errorCode,
        ms: Math.round((performance.now() - exchange.started) * 100) / 100,
      });
    } catch {
      // A broken log hook must not break the server.
    }
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
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
    if (request.method !== 'POST') return methodNotAllowed('POST');
    if (!isJsonContentType(request.headers.get('content-type'))) {
      return errorResponse(415, -32600, 'Content-Type must be application/json');
    }
    if (!acceptsBoth(request.headers.get('accept'))) {
      return errorResponse(
        406,
        -32600,
        'Accept must list both application/json and text/event-stream',
      );
    }
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
    if (Array.isArray(value))
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Batches are not supported by this protocol revision',
      );
    const message = classify(value);
    if (!message)
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'The body is not a JSON-RPC 2.0 request or notification',
      );
    if (message.kind === 'response')
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Clients must not send JSON-RPC responses',
      );
    // The modern era defines no client notifications over HTTP; accept and ignore them.
    if (message.kind === 'notification') return accepted();
    const rpc = message.message;
    const meta = isObject(rpc.params?._meta) ? rpc.params._meta : undefined;
    const modernHeader = request.headers.get(HEADER.protocolVersion)?.trim() === MODERN_VERSION;
    if ((meta && META.protocolVersion in meta) || modernHeader)
      return handleModern(this, request, rpc, meta ?? {});
    // A legacy request (initialize or an initialize-era call): this handler serves 2026-07-28 only.
    const requested =
      rpc.method === 'initialize'
        ? rpc.params?.protocolVersion
        : (request.headers.get(HEADER.protocolVersion) ?? LEGACY_VERSIONS.at(-1));
    return errorResponse(
      400,
      ErrorCode.UnsupportedProtocolVersion,
      'Unsupported protocol version: this server speaks 2026-07-28',
      rpc.id,
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
    signal: core.root.signal,
    get inFlight() {
      return core.inFlight;
    },
  };
}
