/**
 * Structural types shared by the adapters, so they also accept any other fetch-style handler (a
 * Hono app, for one); only the light request is the core's type.
 *
 * @module
 */

import type { AuthInfo, InvalidTokenError } from '@edge-mcp/core';
import type { AdapterRefusal, HANDLE, IncomingRequest, REFUSE } from '@edge-mcp/core/adapter';

/** A Web-standard request handler, such as the one `createMcpHandler()` returns. */
export interface FetchHandler {
  /**
   * Answers one HTTP exchange. `request.signal` is the cancellation token of that exchange: the
   * adapters abort it when the client disconnects before the response is complete.
   *
   * The return type also admits a plain `Response` so that `app.fetch` of frameworks such as Hono
   * fits; the core handler always returns a promise.
   */
  fetch(request: Request): Response | Promise<Response>;
  /**
   * Aborts every in-flight exchange and ends open streams; resolves once they have settled.
   * Called by the adapters' graceful shutdown, with `graceMs` when the server was given one
   * (the core's handler then drains first: see its `CloseOptions`).
   */
  close?(options?: { graceMs?: number }): Promise<void>;
  /**
   * Optional fast entry (the core handler has it, under the core's `HANDLE` symbol): takes a
   * lighter request object and gives a complete answer as plain data, which the Node adapter
   * writes without building a `Response`. `routed`: the framework already matched the path;
   * `auth`: the principal an integration vouched for.
   */
  [HANDLE]?(
    request: IncomingRequest,
    routed?: boolean,
    auth?: AuthInfo | InvalidTokenError,
  ): Promise<Response | PlainReply>;
  /**
   * Optional refusal entry (the core handler has it, under the core's `REFUSE` symbol): answers
   * a request the adapter refuses itself as the handler answers its own refusals, and reports it
   * to the handler's request log.
   */
  [REFUSE]?(
    request: IncomingRequest,
    reason: AdapterRefusal,
    message?: string,
    id?: string | number,
  ): PlainReply;
}

/** A complete answer as plain data (the core's `Reply`, read structurally). */
export interface PlainReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/**
 * Whether a handler's answer is a `Response` (a real one or a stand-in) rather than plain data,
 * told apart by shape: on Node 20 the first read of the global `Response` loads undici (~35 ms of
 * a cold start), which a server answering with plain data never needs.
 */
export function isResponse(answer: Response | PlainReply): answer is Response {
  // `?.`: a broken handler may give anything, and the caller turns that into a 500.
  return typeof (answer as Partial<Response> | null)?.clone === 'function';
}

/** Whether `headers` is a `Headers` rather than a plain record, told apart by shape (as above). */
export function isHeaders(headers: Headers | Readonly<Record<string, string>>): headers is Headers {
  return typeof (headers as Partial<Headers>).forEach === 'function';
}

/**
 * Handler options (`createMcpHandler(server, { ...RUNTIME_HANDLER_OPTIONS, … })`) a runtime needs
 * for its lifecycle guarantees to hold. Every adapter with `serve()` exports its own under the
 * same name, so code importing `@edge-mcp/adapters` stays the same on every runtime.
 */
export interface RuntimeHandlerOptions {
  /** See `McpHandlerOptions.streamAfterMs`. */
  readonly streamAfterMs?: number;
}

/** Receives errors that escaped the handler or broke a response while it was being written. */
export type ErrorReporter = (error: unknown) => void;

/** The options every runtime's `serve()` takes (each runtime's `ServeOptions` adds its own). */
export const SHARED_SERVE_KEYS = [
  'port',
  'hostname',
  'signal',
  'shutdownSignals',
  'onListen',
  'onWarning',
  'onError',
  'graceMs',
  'health',
] as const;

/**
 * Where an adapter's lazy `Request` keeps its light request: `mcp()` finds it there and takes the
 * handler's `handle()` entry with it, so no Web `Request` is built for the MCP endpoint.
 */
export const LIGHT_INCOMING: unique symbol = Symbol.for('edge-mcp.light-incoming');

/**
 * Where the Deno and Bun adapters put the client's address on the runtime's own `Request` when a
 * handler other than the core's (a Hono app) serves it: `mcp()` hands it on to the core, which
 * counts unauthenticated clients by it.
 */
export const REMOTE_ADDRESS: unique symbol = Symbol.for('edge-mcp.remote-address');

/** The client address an adapter put on `request`, if any. */
export function remoteAddressOf(request: Request): string | undefined {
  return (request as { [REMOTE_ADDRESS]?: string })[REMOTE_ADDRESS];
}

/** The light request behind `request`, when an adapter made it lazily and nothing consumed it. */
export function lightIncomingOf(request: Request): IncomingRequest | undefined {
  return (request as { [LIGHT_INCOMING]?: IncomingRequest })[LIGHT_INCOMING];
}
