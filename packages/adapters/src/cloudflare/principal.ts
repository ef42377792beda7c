import type { AuthInfo } from '@edge-mcp/core';

/**
 * The header a Worker uses to hand the principal it authenticated to a session's Durable Object.
 * Only the Worker's own code reaches an object (clients cannot address one), and the Worker
 * removes any copy a client sent before it sets its own, so the object can trust it.
 */
export const PRINCIPAL_HEADER = 'edge-mcp-principal';

/** Finds the principal of a request at the Worker (e.g. `ctx.props` from workers-oauth-provider). */
export type WorkerAuth<Env> = (
  request: Request,
  env: Env,
  ctx: { readonly props?: unknown },
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/**
 * `request` as it goes on to a Durable Object: whatever principal header the client sent removed,
 * the Worker's own set when it has one.
 */
export function withPrincipal(request: Request, auth: AuthInfo | undefined): Request {
  if (auth === undefined && !request.headers.has(PRINCIPAL_HEADER)) return request;
  const headers = new Headers(request.headers);
  headers.delete(PRINCIPAL_HEADER);
  if (auth !== undefined) headers.set(PRINCIPAL_HEADER, encodeURIComponent(JSON.stringify(auth)));
  return new Request(request, { headers });
}

/** The principal the Worker handed over (read inside the object), if any. */
export function principalOf(request: Request): AuthInfo | undefined {
  const value = request.headers.get(PRINCIPAL_HEADER);
  if (value === null) return undefined;
  try {
    const auth = JSON.parse(decodeURIComponent(value)) as AuthInfo;
    return typeof auth?.principal === 'string' && Array.isArray(auth.scopes) ? auth : undefined;
  } catch {
    return undefined;
  }
}
