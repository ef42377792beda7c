/**
 * Hono entry: mount a fetch handler on a Hono route.
 *
 * @module
 */
import type { Context, Handler } from 'hono';
import { lightResponse } from '../shared/light-response.ts';
import { type FetchHandler, lightIncomingOf } from '../shared/types.ts';

export type { FetchHandler } from '../shared/types.ts';

/**
 * Returns a Hono handler that passes the raw `Request` to `handler`, so MCP sees the original
 * method, headers, body and `signal`. Mount it with `app.all()`: the transport uses POST, GET and
 * DELETE. Middleware before it must not consume the body.
 *
 * @example
 * ```ts
 * const app = new Hono();
 * app.all('/mcp', mcp(handler));
 * ```
 */
export function mcp(handler: FetchHandler): Handler {
  return (c: Context) => {
    const raw = c.req.raw;
    // Served by the Node adapter, the Request is lazy and carries the light request: the core's
    // fast entry then answers without a Request or Response being built.
    const light = handler.handle ? lightIncomingOf(raw) : undefined;
    if (light === undefined) return handler.fetch(raw);
    return (handler as Required<Pick<FetchHandler, 'handle'>>).handle(light).then(lightResponse);
  };
}
