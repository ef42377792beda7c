/**
 * The client side of the flow, by hand with `fetch`: dynamic registration of a public client
 * (RFC 7591), PKCE (RFC 7636, S256), the authorization URL with a resource indicator (RFC 8707),
 * and the token endpoint. Enough to prove the authorization server; the official SDK client does
 * the same in the end-to-end test.
 */

export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly registration_endpoint?: string;
  readonly jwks_uri: string;
  readonly code_challenge_methods_supported?: readonly string[];
  readonly [name: string]: unknown;
}

export interface RegisteredClient {
  readonly client_id: string;
  readonly redirect_uris: readonly string[];
  readonly token_endpoint_auth_method: string;
  readonly [name: string]: unknown;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  readonly [name: string]: unknown;
}

export async function fetchMetadata(issuer: string): Promise<AuthorizationServerMetadata> {
  return json(await fetch(`${issuer}/.well-known/oauth-authorization-server`));
}

/** Registers a public client (no secret: `token_endpoint_auth_method: none`). */
export async function registerPublicClient(
  metadata: AuthorizationServerMetadata,
  redirectUri: string,
  name = 'edge-mcp test client',
): Promise<RegisteredClient> {
  if (!metadata.registration_endpoint) throw new Error('no registration_endpoint');
  const response = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  return json(response, 201);
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export async function pkce(): Promise<Pkce> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly resource: string;
  readonly scope: string;
  readonly challenge: string;
  readonly state?: string;
}

export function authorizationUrl(
  metadata: AuthorizationServerMetadata,
  request: AuthorizationRequest,
): URL {
  const url = new URL(metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    resource: request.resource,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
    state: request.state ?? crypto.randomUUID(),
  }).toString();
  return url;
}

/** The code of a redirect, after checking its state and that it carries no error. */
export function codeOf(redirect: URL, state?: string): string {
  const error = redirect.searchParams.get('error');
  if (error)
    throw new Error(
      `authorization failed: ${error} ${redirect.searchParams.get('error_description') ?? ''}`,
    );
  if (state !== undefined && redirect.searchParams.get('state') !== state)
    throw new Error('state mismatch');
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code in ${redirect.href}`);
  return code;
}

export async function exchangeCode(
  metadata: AuthorizationServerMetadata,
  params: {
    clientId: string;
    redirectUri: string;
    code: string;
    verifier: string;
    resource: string;
  },
): Promise<TokenResponse> {
  return tokenRequest(metadata, {
    grant_type: 'authorization_code',
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    code: params.code,
    code_verifier: params.verifier,
    resource: params.resource,
  });
}

export async function refresh(
  metadata: AuthorizationServerMetadata,
  params: { clientId: string; refreshToken: string; resource: string },
): Promise<TokenResponse> {
  return tokenRequest(metadata, {
    grant_type: 'refresh_token',
    client_id: params.clientId,
    refresh_token: params.refreshToken,
    resource: params.resource,
  });
}

/** The token endpoint's answer; throws with the OAuth error when it refuses. */
export async function tokenRequest(
  metadata: AuthorizationServerMetadata,
  form: Record<string, string>,
): Promise<TokenResponse> {
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return json(response);
}

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${response.url} answered ${response.status}: ${text}`);
  }
  return JSON.parse(text) as T;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
