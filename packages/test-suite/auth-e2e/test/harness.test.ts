/**
 * The harness itself, end to end with nothing mocked: oidc-provider on 127.0.0.1, a public client
 * registered dynamically, authorization code + PKCE with a resource indicator, the login and
 * consent pages driven by headless Chromium, the code exchanged for an RFC 9068 JWT access token,
 * and that token checked by @edge-mcp/core/jwt: accepted for its resource, refused for another.
 */
// From the source until core's package.json exports ./jwt (then: '@edge-mcp/core/jwt').

import { jwtVerifier } from '@edge-mcp/core/jwt';
import { decodeProtectedHeader } from 'jose';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type AuthorizationServer,
  type AuthorizationServerMetadata,
  authorizationUrl,
  type CallbackServer,
  codeOf,
  exchangeCode,
  fetchMetadata,
  launchChromium,
  pkce,
  type RegisteredClient,
  refresh,
  registerPublicClient,
  signIn,
  startAuthorizationServer,
  startCallbackServer,
  tokenRequest,
} from '../src/index.ts';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const OTHER_RESOURCE = 'http://127.0.0.1:9/other-mcp';
const REQUEST = new Request(RESOURCE, { method: 'POST' });

let as: AuthorizationServer;
let callback: CallbackServer;
let browser: Browser;
let metadata: AuthorizationServerMetadata;
let client: RegisteredClient;

beforeAll(async () => {
  [as, callback, browser] = await Promise.all([
    startAuthorizationServer(),
    startCallbackServer(),
    launchChromium(),
  ]);
  metadata = await fetchMetadata(as.issuer);
  client = await registerPublicClient(metadata, callback.redirectUri);
});

afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close(), as?.stop()]);
});

/** The whole authorization-code flow for `resource`, signed in as `username` in `context`. */
async function authorize(
  resource: string,
  options: { username?: string; context?: BrowserContext } = {},
) {
  const { verifier, challenge } = await pkce();
  const state = crypto.randomUUID();
  const url = authorizationUrl(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    resource,
    scope: 'mcp:tools mcp:read',
    challenge,
    state,
  });
  const redirect = await signIn(options.context ?? browser, url, {
    redirectUri: callback.redirectUri,
    ...(options.username ? { username: options.username } : {}),
  });
  const code = codeOf(redirect, state);
  return exchangeCode(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    code,
    verifier,
    resource,
  });
}

test('the metadata an MCP client needs: registration, PKCE S256, the code grant, keys', async () => {
  expect(metadata).toMatchObject({
    issuer: as.issuer,
    registration_endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
    token_endpoint_auth_methods_supported: expect.arrayContaining(['none']),
    jwks_uri: as.jwksUrl,
  });
  expect(client.token_endpoint_auth_method).toBe('none');
  expect(client).not.toHaveProperty('client_secret');
});

test('code + PKCE through Chromium → a JWT for the resource that the JWT verifier accepts', async () => {
  const tokens = await authorize(RESOURCE);
  expect(tokens.token_type).toBe('Bearer');
  expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
  expect(callback.received.length).toBeGreaterThan(0);

  const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, requireAtJwt: true });
  const auth = await verify(tokens.access_token, REQUEST);
  expect(auth).toMatchObject({
    principal: 'alice',
    scopes: expect.arrayContaining(['mcp:tools', 'mcp:read']),
    clientId: client.client_id,
    claims: expect.objectContaining({ iss: as.issuer, aud: RESOURCE }),
  });
  expect(auth?.scopes).toHaveLength(2);
  expect(auth?.expiresAt).toBeGreaterThan(Date.now() / 1000);

  // Refreshed for the same resource: still this resource's token, still alice's.
  expect(tokens.refresh_token).toEqual(expect.any(String));
  const refreshed = await refresh(metadata, {
    clientId: client.client_id,
    refreshToken: tokens.refresh_token as string,
    resource: RESOURCE,
  });
  expect((await verify(refreshed.access_token, REQUEST))?.principal).toBe('alice');
  expect(as.errors).toEqual([]);
});

test('a token minted for another resource is refused by this resource (RFC 8707)', async () => {
  const context = await browser.newContext();
  try {
    const mine = await authorize(RESOURCE, { username: 'bob', context });
    // Bob is signed in now: the second round only asks for consent to the other resource.
    const other = await authorize(OTHER_RESOURCE, { username: 'bob', context });
    const here = jwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    const there = jwtVerifier({ issuer: as.issuer, audience: OTHER_RESOURCE });
    expect((await here(mine.access_token, REQUEST))?.principal).toBe('bob');
    expect((await there(other.access_token, REQUEST))?.principal).toBe('bob');
    // Refused with the check it failed (the 401 says so), never accepted.
    await expect(here(other.access_token, REQUEST)).rejects.toMatchObject({
      name: 'InvalidTokenError',
      rejection: 'audience',
    });
    await expect(there(mine.access_token, REQUEST)).rejects.toMatchObject({
      name: 'InvalidTokenError',
      rejection: 'audience',
    });
  } finally {
    await context.close();
  }
});

test('PKCE is enforced: a wrong verifier, or none, gets invalid_grant', async () => {
  const { challenge } = await pkce();
  const url = authorizationUrl(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    resource: RESOURCE,
    scope: 'mcp:tools',
    challenge,
  });
  const code = codeOf(await signIn(browser, url, { redirectUri: callback.redirectUri }));
  const wrong = await pkce();
  await expect(
    exchangeCode(metadata, {
      clientId: client.client_id,
      redirectUri: callback.redirectUri,
      code,
      verifier: wrong.verifier,
      resource: RESOURCE,
    }),
  ).rejects.toThrow(/invalid_grant/);

  // An authorization request without a code challenge is refused outright.
  const bare = new URL(url);
  bare.searchParams.delete('code_challenge');
  bare.searchParams.delete('code_challenge_method');
  const refused = await signIn(browser, bare, { redirectUri: callback.redirectUri });
  expect(refused.searchParams.get('error')).toBe('invalid_request');
  await expect(
    tokenRequest(metadata, { grant_type: 'authorization_code', client_id: client.client_id, code }),
  ).rejects.toThrow(/invalid_grant|invalid_request/);
});
