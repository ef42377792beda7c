/**
 * The health routes every runtime's `serve()` answers itself, before the handler: `/healthz`
 * (the process is alive) and `/readyz` (it takes new work). Readiness turns 503 the moment a
 * shutdown starts, so a balancer or a Kubernetes readiness probe stops sending work while the
 * calls in flight drain.
 *
 * @module
 */
import { HEADER } from '@edge-mcp/core/adapter';
import type { PlainReply } from './types.ts';

/** The paths `serve()` answers unless its `health` option is `false`. */
export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

/** Whether a server takes new work: from listening until its shutdown starts. */
export class Readiness {
  ready = true;
}

const HEADERS = { [HEADER.contentType]: 'application/json', 'cache-control': 'no-store' };
const ALIVE: PlainReply = { status: 200, headers: HEADERS, body: '{"status":"ok"}' };
const READY: PlainReply = { status: 200, headers: HEADERS, body: '{"status":"ready"}' };
const DRAINING: PlainReply = {
  status: 503,
  headers: { ...HEADERS, [HEADER.retryAfter]: '1' },
  body: '{"status":"draining"}',
};
const GET_ONLY: PlainReply = {
  status: 405,
  headers: { ...HEADERS, [HEADER.allow]: 'GET, HEAD' },
  body: '{"status":"method not allowed"}',
};

/**
 * The answer to a health route, or `undefined` for any other path (`target`: the request target,
 * a path with an optional query). One comparison for every other request.
 */
export function healthReply(
  method: string,
  target: string,
  readiness: Readiness,
): PlainReply | undefined {
  if (target.charCodeAt(1) !== 104 && target.charCodeAt(1) !== 114) return undefined; // 'h', 'r'
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (path !== HEALTH_PATHS.live && path !== HEALTH_PATHS.ready) return undefined;
  if (method !== 'GET' && method !== 'HEAD') return GET_ONLY;
  if (path === HEALTH_PATHS.live) return ALIVE;
  return readiness.ready ? READY : DRAINING;
}

/**
 * The request target of a request URL (`/path?query`). Bun gives the bare target when the
 * request has no Host (an HTTP/1.0 health check such as HAProxy's `option httpchk`).
 */
export function targetOf(url: string): string {
  if (url.charCodeAt(0) === 47) return url; // '/'
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? '/' : url.slice(slash);
}

/** A health answer as a Web `Response` (Deno, Bun); HEAD gets no body. */
export function healthResponse(reply: PlainReply, method: string): Response {
  return new Response(method === 'HEAD' ? null : reply.body, {
    status: reply.status,
    headers: reply.headers,
  });
}
