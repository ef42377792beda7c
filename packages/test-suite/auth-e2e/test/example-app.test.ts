/**
 * The example app configured from its environment only, as a user runs it (`startApp`), with
 * MCP_AUTH_ISSUER naming the real authorization server, MCP_RESOURCE_URL, MCP_AUTH_SCOPES and
 * MCP_CORS_ORIGINS. An unauthenticated request gets the 401 challenge naming the metadata, the
 * metadata names the issuer and the scopes, the official SDK client's OAuth flow (sign-in in
 * Chromium) gets a token for the app and calls its `whoami` tool, the session it opened is bound
 * to alice (bob's token gets 404 on it), and a preflight from the CORS origin is answered 204.
 */
import { freePort } from '@edge-mcp/test-kit/node';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type App, startApp } from '../src/example-app.ts';
import {
  type AuthorizationServer,
  type CallbackServer,
  launchChromium,
  signedInToken,
  signIn,
  startAuthorizationServer,
  startCallbackServer,
} from '../src/index.ts';
import { ChromiumOAuthProvider } from './sdk-provider.ts';

/** The browser origin MCP_CORS_ORIGINS lets in (nothing needs to listen there for a preflight). */
const CORS_ORIGIN = 'http://localhost:5173';

let as: AuthorizationServer;
let callback: CallbackServer;
let browser: Browser;
let app: App;
/** The app's resource identifier (MCP_RESOURCE_URL). */
let resource: string;

beforeAll(async () => {
  [as, callback, browser] = await Promise.all([
    startAuthorizationServer(),
    startCallbackServer(),
    launchChromium(),
  ]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  app = await startApp(port, {
    MCP_AUTH_ISSUER: as.issuer,
    MCP_RESOURCE_URL: resource,
    MCP_AUTH_SCOPES: 'mcp:tools',
    MCP_CORS_ORIGINS: CORS_ORIGIN,
  });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await Promise.all([browser?.close(), callback?.close(), as?.stop()]);
});

function initialize(headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  };
}

test('no token: 401 naming the metadata, which names the issuer and the scopes', async () => {
  const metadataUrl = `${app.origin}/.well-known/oauth-protected-resource/mcp`;
  const refused = await fetch(resource, initialize());
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
  await refused.body?.cancel();
  const metadata = await fetch(metadataUrl);
  expect(metadata.status).toBe(200);
  expect(await metadata.json()).toEqual({
    resource: resource,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['mcp:tools'],
  });
});

test('the SDK client signs in as alice, calls whoami; the session it opened is hers', async () => {
  const provider = new ChromiumOAuthProvider('edge-mcp example e2e', callback.redirectUri, (url) =>
    signIn(browser, url, { redirectUri: callback.redirectUri, username: 'alice' }),
  );
  const first = new StreamableHTTPClientTransport(new URL(resource), {
    authProvider: provider,
  });
  await expect(
    new Client({ name: 'example-e2e', version: '1.0.0' }).connect(first),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  // Discovered from the 401 alone: the issuer the app was configured with, for the app's
  // resource, with the scopes it advertises.
  const [authorization] = provider.authorizationUrls;
  expect(authorization?.origin).toBe(as.issuer);
  expect(authorization?.searchParams.get('resource')).toBe(resource);
  expect(authorization?.searchParams.get('scope')).toBe('mcp:tools');
  await first.finishAuth(provider.code as string);
  expect(provider.saved?.access_token).toEqual(expect.any(String));

  const transport = new StreamableHTTPClientTransport(new URL(resource), {
    authProvider: provider,
  });
  const client = new Client({ name: 'example-e2e', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const [content] = result.content as { type: string; text: string }[];
  // The example's whoami reports revision, client info and session, not the principal.
  const whoami = JSON.parse(content?.text ?? '{}');
  expect(whoami).toMatchObject({
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'example-e2e', version: '1.0.0' },
    session: transport.sessionId,
  });
  expect(transport.sessionId).toEqual(expect.any(String));

  // The principal is the token's subject: bob, signed in too, cannot use alice's session.
  const bob = await signedInToken(as.issuer, browser, callback.redirectUri, resource, 'bob');
  const call = (token: string) =>
    fetch(resource, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      }),
    });
  const hijack = await call(bob);
  expect([hijack.status, (await hijack.json()).error?.code]).toEqual([404, -32001]);
  const hers = await call(provider.saved?.access_token as string);
  expect(hers.status).toBe(200);
  await hers.body?.cancel();
  await client.close();
  expect(as.errors).toEqual([]);
});

test('a preflight from the MCP_CORS_ORIGINS origin is 204; another origin gets 403', async () => {
  const preflight = (origin: string) =>
    fetch(resource, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
  const allowed = await preflight(CORS_ORIGIN);
  expect(allowed.status).toBe(204);
  expect(allowed.headers.get('access-control-allow-origin')).toBe(CORS_ORIGIN);
  expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
  expect(allowed.headers.get('access-control-allow-headers')?.split(/,\s*/)).toEqual(
    expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version']),
  );
  const refused = await preflight('http://localhost:1');
  expect(refused.status).toBe(403);
  await refused.body?.cancel();
  // The 401 a browser on that origin gets is readable there, its challenge exposed.
  const challenged = await fetch(resource, initialize({ origin: CORS_ORIGIN }));
  expect(challenged.status).toBe(401);
  expect(challenged.headers.get('access-control-allow-origin')).toBe(CORS_ORIGIN);
  expect(challenged.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  await challenged.body?.cancel();
});
