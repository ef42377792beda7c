/**
 * The official TypeScript SDK client's OAuth flow, end to end, against an edge-mcp server on
 * Node: 401 → Protected Resource Metadata (RFC 9728) → authorization server metadata (RFC 8414)
 * → dynamic client registration (RFC 7591) → authorization code with PKCE and a resource
 * indicator, the login and consent pages driven by headless Chromium → token → tools/call as
 * the user who signed in. The server checks tokens with @edge-mcp/core/jwt.
 */
import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
// From the source until core's package.json exports ./jwt (then: '@edge-mcp/core/jwt').
import { jwtVerifier } from '@edge-mcp/core/jwt';
import { freePort } from '@edge-mcp/test-kit/node';
import {
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type AuthorizationServer,
  authorizationUrl,
  type CallbackServer,
  codeOf,
  exchangeCode,
  fetchMetadata,
  launchChromium,
  pkce,
  registerPublicClient,
  signIn,
  startAuthorizationServer,
  startCallbackServer,
} from '../src/index.ts';
import { ChromiumOAuthProvider } from './sdk-provider.ts';

let as: AuthorizationServer;
let callback: CallbackServer;
let browser: Browser;
let server: NodeServer;
let resource: string;
/** Every HTTP exchange the SDK made (MCP server and authorization server): `METHOD url status`. */
const exchanges: string[] = [];

const logged: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  exchanges.push(`${init?.method ?? 'GET'} ${url.origin}${url.pathname} ${response.status}`);
  return response;
};

beforeAll(async () => {
  [as, callback, browser] = await Promise.all([
    startAuthorizationServer(),
    startCallbackServer(),
    launchChromium(),
  ]);
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const mcp = new McpServer({ name: 'oauth-e2e', version: '1.0.0' });
  mcp.tool('whoami', { scopes: ['mcp:tools'] }, (_args, ctx) =>
    JSON.stringify({
      principal: ctx.auth?.principal,
      scopes: ctx.auth?.scopes,
      clientId: ctx.auth?.clientId,
    }),
  );
  const handler = createMcpHandler(mcp, {
    auth: {
      verify: jwtVerifier({ issuer: as.issuer, audience: resource }),
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp:tools', 'mcp:read'],
    },
  });
  server = await serve(handler, { port, hostname: '127.0.0.1', shutdownSignals: false });
});

afterAll(async () => {
  await server?.close();
  await Promise.all([browser?.close(), callback?.close(), as?.stop()]);
});

function transport(provider: OAuthClientProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(resource), {
    authProvider: provider,
    fetch: logged,
  });
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? '';
}

test('401 → metadata → registration → code + PKCE in Chromium → token → tools/call as alice', async () => {
  const provider = new ChromiumOAuthProvider('edge-mcp SDK e2e', callback.redirectUri, (url) =>
    signIn(browser, url, { redirectUri: callback.redirectUri, username: 'alice' }),
  );
  const first = transport(provider);
  const client = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

  // The SDK found everything from the 401 alone, registered itself, and sent the user to sign in.
  expect(provider.information?.client_id).toEqual(expect.any(String));
  const [authorization] = provider.authorizationUrls;
  expect(authorization?.origin).toBe(as.issuer);
  expect(authorization?.searchParams.get('resource')).toBe(resource);
  expect(authorization?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorization?.searchParams.get('scope')).toBe('mcp:tools mcp:read');
  expect(provider.code).toEqual(expect.any(String));

  await first.finishAuth(provider.code as string);
  expect(provider.saved?.access_token).toEqual(expect.any(String));
  const authorized = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
  await authorized.connect(transport(provider));
  const result = await authorized.callTool({ name: 'whoami', arguments: {} });
  expect(JSON.parse(textOf(result))).toEqual({
    principal: 'alice',
    scopes: ['mcp:tools', 'mcp:read'],
    clientId: provider.information?.client_id,
  });
  await authorized.close();

  const steps = [
    `POST ${resource} 401`,
    `GET http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp 200`,
    `GET ${as.issuer}/.well-known/oauth-authorization-server 200`,
    `POST ${as.issuer}/reg 201`,
    `POST ${as.issuer}/token 200`,
    `POST ${resource} 200`,
  ];
  const positions = steps.map((step) => exchanges.indexOf(step));
  expect(positions, exchanges.join('\n')).not.toContain(-1);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);

  // The tokens are reused: a second connection needs no browser.
  const again = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
  await again.connect(transport(provider));
  expect(
    JSON.parse(textOf(await again.callTool({ name: 'whoami', arguments: {} }))).principal,
  ).toBe('alice');
  await again.close();
  expect(provider.authorizationUrls).toHaveLength(1);
  expect(as.errors).toEqual([]);
});

test('a token the same server issued for another resource gets 401 invalid_token here', async () => {
  const metadata = await fetchMetadata(as.issuer);
  const client = await registerPublicClient(metadata, callback.redirectUri);
  const other = `http://127.0.0.1:${new URL(resource).port}/other`;
  const { verifier, challenge } = await pkce();
  const url = authorizationUrl(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    resource: other,
    scope: 'mcp:tools mcp:read',
    challenge,
  });
  const code = codeOf(await signIn(browser, url, { redirectUri: callback.redirectUri }));
  const tokens = await exchangeCode(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    code,
    verifier,
    resource: other,
  });
  const response = await fetch(resource, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
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
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  expect(response.headers.get('www-authenticate')).toContain(
    `resource_metadata="http://127.0.0.1:${new URL(resource).port}/.well-known/oauth-protected-resource/mcp"`,
  );
});
