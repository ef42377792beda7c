/**
 * Hono entry: mount a fetch handler on a Hono route.
 *
 * @module
 */
import { HANDLE } from '@edge-mcp/core/adapter';
import type { Context, Handler } from 'hono';
import { lightResponse, toWebResponse } from '../shared/light-response.ts';
import { type FetchHandler, lightIncomingOf } from '../shared/types.ts';

export type { FetchHandler } from '../shared/types.ts';

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
 * ```
 */
export function mcp(handler: FetchHandler): Handler {
  const entry = handler[HANDLE]?.bind(handler);
  if (!entry) return (c: Context) => handler.fetch(c.req.raw);
  return (c: Context) => {
    const raw = c.req.raw;
    // Served by the Node adapter, the Request is lazy and carries the light request: the core's
    // fast entry then answers without a Request or Response being built.
    const light = lightIncomingOf(raw);
    if (light === undefined) return entry(raw, true).then(toWebResponse);
    return entry(light, true).then(lightResponse);
  };
}
