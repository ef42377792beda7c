/**
 * The client's address on Cloudflare, so limits per principal (rate limits, requests and bytes in
 * flight, sessions, tasks) count an unauthenticated client by its address as they do on Node,
 * Deno and Bun, instead of putting every anonymous client in one bucket.
 *
 * @module
 */
import type { IncomingRequest } from '@edge-mcp/core/adapter';
import { REMOTE_ADDRESS } from '../shared/types.ts';
import { WebIncoming } from '../shared/web-request.ts';

/**
 * `CF-Connecting-IP`: Cloudflare's edge sets it on every request (a client's own copy is
 * replaced). Under `wrangler dev` a client may send its own, which the tests use to be several
 * clients.
 */
export function clientAddress(request: Request): string | undefined {
  return request.headers.get('cf-connecting-ip') ?? undefined;
}

/** `request` for the core's fast entry, with the client's address. */
export function withClient(request: Request): IncomingRequest {
  return new WebIncoming(request, clientAddress(request));
}

/** `request` for an app's handler (Hono's `mcp()` reads the address where the adapters put it). */
export function markClient(request: Request): Request {
  const address = clientAddress(request);
  if (address !== undefined) (request as { [REMOTE_ADDRESS]?: string })[REMOTE_ADDRESS] = address;
  return request;
}
