/**
 * Hono entry: mount a fetch handler on a Hono route.
 *
 * @module
 */
import { type AuthInfo, InvalidTokenError } from '@edge-mcp/core';
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import type { Context, Handler } from 'hono';
import { lightResponse, toWebResponse } from '../shared/light-response.ts';
import { type FetchHandler, lightIncomingOf, remoteAddressOf } from '../shared/types.ts';
import { WebIncoming } from '../shared/web-request.ts';

export type { FetchHandler } from '../shared/types.ts';

/** Options of {@link mcp}. */
export interface McpOptions {
  /**
   * The principal earlier middleware verified (Hono's `jwt()`, your own session check): the MCP
   * handler binds sessions and state to it and hands it to tools as `ctx.auth`. Throw an
   * `InvalidTokenError` for a token the middleware rejected (answered 401 with its reason, in the
   * handler's request log). Return `undefined` for an unauthenticated request; with the handler's
   * `auth` option set it then gets the 401 challenge. Needs a handler with the fast entry (the
   * core handler).
   *
   * @default undefined (the handler authenticates on its own, if its `auth` option is set)
   */
  auth?: (c: Context) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
}

const MCP_OPTION_KEYS = optionKeys<McpOptions>()(['auth']);

/**
 * Returns a Hono handler that passes the raw `Request` to `handler`, so MCP sees the original
 * method, headers, body and `signal`. Mount it with `app.all()` on any path (Hono has routed the
 * request, so the handler's own `path` option does not apply): the transport uses POST, GET and
 * DELETE. Middleware before it must not consume the body.
 *
 * @example
 * ```ts
 * const app = new Hono();
 * app.all('/mcp', mcp(handler));
 * // Behind middleware that verified the user:
 * app.all('/mcp', jwt({ secret }), mcp(handler, { auth: (c) => ({ principal: c.get('jwtPayload').sub, scopes: [] }) }));
 * ```
 */
export function mcp(handler: FetchHandler, options: McpOptions = {}): Handler {
  checkOptionKeys(options, MCP_OPTION_KEYS, 'mcp()');
  const entry = handler[HANDLE]?.bind(handler);
  const principal = options.auth;
  if (!entry) {
    if (principal)
      throw new TypeError('mcp(): the auth option needs the core handler (its fast entry)');
    return (c: Context) => handler.fetch(c.req.raw);
  }
  const answer = (
    c: Context,
    auth: AuthInfo | InvalidTokenError | undefined,
  ): Promise<Response> => {
    const raw = c.req.raw;
    // Served by the Node adapter, the Request is lazy and carries the light request: the core's
    // fast entry then answers without a Request or Response being built.
    const light = lightIncomingOf(raw);
    if (light === undefined) {
      // On Deno and Bun, the adapter left the client's address on the runtime's Request.
      const remote = remoteAddressOf(raw);
      const incoming = remote === undefined ? raw : new WebIncoming(raw, remote);
      return entry(incoming, true, auth).then(toWebResponse);
    }
    return entry(light, true, auth).then(lightResponse);
  };
  if (!principal) return (c: Context) => answer(c, undefined);
  return async (c: Context) => {
    let auth: AuthInfo | InvalidTokenError | undefined;
    try {
      auth = await principal(c);
    } catch (error) {
      // A token the middleware rejected: the handler answers 401 with the reason, and logs it.
      if (!(error instanceof InvalidTokenError)) throw error;
      auth = error;
    }
    return answer(c, auth);
  };
}
