/**
 * The handler users get: `createMcpHandler(server, options)` and its type.
 *
 * @module
 */
import { HANDLE, REFUSE } from '../http/fast-path.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, type Reply, toResponse } from '../http/responses.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { checkOptionKeys } from '../schema/option-keys.ts';
import type { McpServer } from '../server/server.ts';
import { type AdapterRefusal, refuseForAdapter } from './adapter-refusal.ts';
import { HandlerCore } from './handler.ts';
import {
  type CloseOptions,
  HANDLER_OPTION_KEYS,
  type HandlerStats,
  type McpHandlerOptions,
  NESTED_OPTION_KEYS,
} from './options.ts';
import { route } from './route.ts';
import type { Given } from './routed-endpoint.ts';

/** A handler with the fast entry adapters use (see `HANDLE`). */
export interface FastEntry {
  [HANDLE](request: IncomingRequest, routed?: boolean, auth?: Given): Promise<Answer>;
  /** An adapter's own refusal, answered and reported as the handler's (see `REFUSE`). */
  [REFUSE](
    request: IncomingRequest,
    reason: AdapterRefusal,
    message?: string,
    id?: RequestId,
  ): Reply;
}

/**
 * The MCP endpoint `createMcpHandler()` builds: one `fetch` for every HTTP exchange, and one
 * `close()` that ends everything it started.
 */
export interface McpHandler extends FastEntry {
  /** The endpoint: `request.signal` is the cancellation token of the HTTP exchange. */
  fetch(request: Request): Promise<Response>;
  /**
   * Shutdown: ends every session (their `onClose` hooks run), aborts every in-flight handler with
   * reason `shutdown`, ends every open stream (listen streams get their completing result first)
   * and resolves once every handler settled, or after `shutdownTimeoutMs`. Later requests get 503.
   * With a session manager that spans instances (`SessionManager.shutdown`), only this instance
   * stops: its requests and streams end (`shutdown`), the sessions go on on the others.
   *
   * With `graceMs`, a drain comes first (rolling deploys): new requests get 503 with
   * Retry-After, GET and listen streams end so their clients reconnect through the balancer, and
   * calls and tasks in flight get up to `graceMs` to finish; see `CloseOptions`.
   */
  close(options?: CloseOptions): Promise<void>;
  /**
   * Aborts (reason `shutdown`) when the handler closes. Created on first read; on workerd read
   * `closed` instead (a signal made while serving one request cannot be used by another).
   */
  readonly signal: AbortSignal;
  /** True once `close()` was called (or the `signal` option aborted), its drain included. */
  readonly closed: boolean;
  /** In-flight requests (open listen streams included). */
  readonly inFlight: number;
  /** Live counters: sessions, open streams, reaped and resumed so far. */
  stats(): HandlerStats;
}

/**
 * Builds the MCP endpoint for `server` once; call `fetch` per request. The server is an
 * instance (as in Cloudflare's `agents`), not a factory per request (as in SDK v2's function of
 * the same name): registrations are compiled once and shared by every request.
 *
 * @example
 * ```ts
 * const handler = createMcpHandler(server, { allowedHosts: ['mcp.example.com'] });
 * Deno.serve((request) => handler.fetch(request));
 * ```
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports
 */
export function createMcpHandler(server: McpServer, options: McpHandlerOptions = {}): McpHandler {
  checkHandlerOptions(options);
  const core = new HandlerCore(server, options);
  return {
    async fetch(request) {
      return toResponse(await route(core, request, false, undefined));
    },
    [HANDLE]: (request: IncomingRequest, routed = false, auth?: Given): Promise<Answer> =>
      route(core, request, routed, auth),
    [REFUSE]: (
      request: IncomingRequest,
      reason: AdapterRefusal,
      message?: string,
      id?: RequestId,
    ): Reply => refuseForAdapter(core, request, reason, message, id),
    close: (options?: CloseOptions) => core.close(options),
    get signal() {
      return core.root.signal;
    },
    get closed() {
      return core.draining || core.root.aborted;
    },
    get inFlight() {
      return core.inFlight;
    },
    stats: () => core.stats(),
  };
}

/**
 * Refuses an unknown option name, at the top level and in the nested objects of ours, with the
 * nearest known one (`allowedHost`: did you mean `allowedHosts`?): ignored, such an option would
 * leave the handler on its default silently (a `paht` serves `/mcp`). Once, at construction.
 */
function checkHandlerOptions(options: McpHandlerOptions): void {
  const what = 'createMcpHandler()';
  checkOptionKeys(options, HANDLER_OPTION_KEYS, what);
  for (const [name, known] of Object.entries(NESTED_OPTION_KEYS)) {
    const nested = options[name as keyof typeof NESTED_OPTION_KEYS];
    // `tasks: false` turns tasks off; an unset option is its default.
    if (nested !== undefined && nested !== false) checkOptionKeys(nested, known, what, `${name}.`);
  }
}
