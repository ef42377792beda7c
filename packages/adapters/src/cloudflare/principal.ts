import { type AuthInfo, InvalidTokenError, type TokenRejection } from '@edge-mcp/core';

/**
 * The header a Worker uses to hand the principal it authenticated to a session's Durable Object.
 * Only the Worker's own code reaches an object (clients cannot address one), and the Worker
 * removes any copy a client sent before it sets its own, so the object can trust it.
 */
export const PRINCIPAL_HEADER = 'edge-mcp-principal';

/**
 * Finds the principal of a request at the Worker (e.g. `ctx.props` from workers-oauth-provider):
 * `undefined` for none (the handler then answers as it does without a token), or throw an
 * `InvalidTokenError` naming the check the token failed: the request goes on to the handler that
 * serves it with that rejection, which answers 401 with the reason and logs the refusal.
 */
export type WorkerAuth<Env> = (
  request: Request,
  env: Env,
  ctx: { readonly props?: unknown },
) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

/**
 * `request` as it goes on to a Durable Object or the isolate's handler: whatever principal header
 * the client sent removed, the Worker's own set when it has one (a principal, or the rejection of
 * the request's token).
 */
export function withPrincipal(
  request: Request,
  auth: AuthInfo | InvalidTokenError | undefined,
): Request {
  if (auth === undefined && !request.headers.has(PRINCIPAL_HEADER)) return request;
  const headers = new Headers(request.headers);
  headers.delete(PRINCIPAL_HEADER);
  if (auth !== undefined) {
    const value = auth instanceof InvalidTokenError ? { rejected: auth.rejection } : auth;
    headers.set(PRINCIPAL_HEADER, encodeURIComponent(JSON.stringify(value)));
  }
  return new Request(request, { headers });
}

/**
 * The principal the Worker handed over (read inside the object, or by the isolate's app), if any;
 * throws the `InvalidTokenError` the Worker rejected the token with, for the handler to answer.
 */
export function principalOf(request: Request): AuthInfo | undefined {
  const value = request.headers.get(PRINCIPAL_HEADER);
  if (value === null) return undefined;
  let auth: (AuthInfo & { rejected?: undefined }) | { rejected: TokenRejection } | undefined;
  try {
    auth = JSON.parse(decodeURIComponent(value));
  } catch {
    return undefined;
  }
  if (typeof auth?.rejected === 'string') throw new InvalidTokenError(auth.rejected);
  return typeof auth?.principal === 'string' && Array.isArray(auth.scopes) ? auth : undefined;
}

/** `principalOf`, with a rejection returned rather than thrown (for the handler's fast entry). */
export function givenOf(request: Request): AuthInfo | InvalidTokenError | undefined {
  try {
    return principalOf(request);
  } catch (error) {
    if (error instanceof InvalidTokenError) return error;
    throw error;
  }
}
