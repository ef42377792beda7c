/**
 * Who the demo can sign in, which scopes the authorization server grants, and how a grant the
 * provider let through becomes the principal edge-mcp sees (`ctx.auth`). The sign-in page writes
 * `Props` into the grant; `principalFromProvider` reads them back on every MCP request.
 */
import type { AuthInfo } from '@edge-mcp/core';

/**
 * The demo's users and the scopes each may be granted: the only "accounts" the sign-in page
 * offers. NOT a user database.
 */
export const DEMO_USERS: Readonly<Record<string, readonly string[]>> = {
  alice: ['mcp:tools', 'mcp:admin'],
  bob: ['mcp:tools'],
};

/** Every scope the authorization server can grant (RFC 8414 `scopes_supported`). */
export const SCOPES = ['mcp:tools', 'mcp:admin'];
/** What any access needs: named in the 401 and the RFC 9728 metadata, so clients ask for it first. */
export const REQUIRED_SCOPES = ['mcp:tools'];

/** What `completeAuthorization` stores with the grant; the provider hands it back as `ctx.props`. */
export interface Props {
  userId: string;
}

/**
 * The principal of a request the provider let through: `ctx.props` is what the sign-in page
 * stored, `ctx.auth` what the provider verified about the token (its scopes, expiry, client).
 * `undefined` when there are no props: the handler (whose `auth` option has no `verify`) then
 * answers 401 rather than serving the request anonymously.
 */
export function principalFromProvider(ctx: { readonly props?: unknown }): AuthInfo | undefined {
  const props = ctx.props as Partial<Props> | undefined;
  if (typeof props?.userId !== 'string') return undefined;
  const token = (ctx as { auth?: { scope?: string[]; expiresAt?: number; clientId?: string } })
    .auth;
  return {
    principal: props.userId,
    scopes: token?.scope ?? [],
    expiresAt: token?.expiresAt,
    clientId: token?.clientId,
  };
}
