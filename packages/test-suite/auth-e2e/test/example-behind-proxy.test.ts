/**
 * The example app with OAuth behind nginx (docs/deploying/nginx.conf), as docs/deploying.md
 * runs it: MCP_TRUST_PROXY=1 and ALLOWED_HOSTS=mcp.example.test, no MCP_RESOURCE_URL. The
 * client addresses `http://mcp.example.test:<nginx port>/mcp` (a name this machine cannot
 * resolve: the client's fetch sends it to nginx on 127.0.0.1 with that Host, as DNS would).
 * The resource identifier, the metadata and the challenge follow that URL, not the app's
 * internal address, so the official SDK client's discovery accepts them (RFC 9728 §3.3), asks
 * the real authorization server for a token for that resource (RFC 8707), and calls a tool; a
 * token minted for the internal address is refused, and so is a host nobody listed.
 */

import { modern } from '@edge-mcp/test-kit';
import { freePort, nginxDocumented, type ReverseProxy, startNginx } from '@edge-mcp/test-kit/node';
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
import { namedFetch } from '../src/named-fetch.ts';
import { ChromiumOAuthProvider } from './sdk-provider.ts';

let as: AuthorizationServer;
let callback: CallbackServer;
let browser: Browser;
let app: App;
let nginx: ReverseProxy;
/** What the client addresses, and the fetch that reaches it. */
let publicUrl: string;
let clientFetch: typeof fetch;

beforeAll(async () => {
  [as, callback, browser] = await Promise.all([
    startAuthorizationServer(),
    startCallbackServer(),
    launchChromium(),
  ]);
  const [appPort, proxyPort] = [await freePort(), await freePort()];
  app = await startApp(appPort, {
    MCP_AUTH_ISSUER: as.issuer,
    MCP_AUTH_SCOPES: 'mcp:tools',
    MCP_TRUST_PROXY: '1',
    ALLOWED_HOSTS: 'mcp.example.test',
  });
  nginx = await startNginx(nginxDocumented(proxyPort, appPort), proxyPort);
  publicUrl = `http://mcp.example.test:${proxyPort}/mcp`;
  clientFetch = namedFetch({
    [`mcp.example.test:${proxyPort}`]: `127.0.0.1:${proxyPort}`,
    [`rebind.attacker.test:${proxyPort}`]: `127.0.0.1:${proxyPort}`,
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await app?.stop();
  await Promise.all([browser?.close(), callback?.close(), as?.stop()]);
});

/** A token of the authorization server for `resource`, signed in as alice. */
function tokenFor(resource: string): Promise<string> {
  return signedInToken(as.issuer, browser, callback.redirectUri, resource);
}

function listTools(url: string, token?: string): Promise<Response> {
  return clientFetch(
    url,
    modern('tools/list', {}, { headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );
}

test('the metadata and the challenge name the public URL the client addressed', async () => {
  const refused = await listTools(publicUrl);
  expect(refused.status).toBe(401);
  const metadataUrl = `${new URL(publicUrl).origin}/.well-known/oauth-protected-resource/mcp`;
  expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
  await refused.body?.cancel();
  const metadata = await clientFetch(metadataUrl);
  expect(await metadata.json()).toMatchObject({
    resource: publicUrl,
    authorization_servers: [as.issuer],
  });
  // A rebinding name passes no check: not a name of this resource.
  const rebound = await listTools(publicUrl.replace('mcp.example.test', 'rebind.attacker.test'));
  expect(rebound.status).toBe(403);
  await rebound.body?.cancel();
  expect(app.output()).not.toContain('set ALLOWED_HOSTS');
});

test('the SDK client discovers the public resource, gets a token for it and calls a tool', async () => {
  const provider = new ChromiumOAuthProvider('edge-mcp behind nginx', callback.redirectUri, (url) =>
    signIn(browser, url, { redirectUri: callback.redirectUri, username: 'alice' }),
  );
  const first = new StreamableHTTPClientTransport(new URL(publicUrl), {
    authProvider: provider,
    fetch: clientFetch,
  });
  await expect(
    new Client({ name: 'proxy-e2e', version: '1.0.0' }).connect(first),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrls[0]?.searchParams.get('resource')).toBe(publicUrl);
  await first.finishAuth(provider.code as string);
  const transport = new StreamableHTTPClientTransport(new URL(publicUrl), {
    authProvider: provider,
    fetch: clientFetch,
  });
  const client = new Client({ name: 'proxy-e2e', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const [content] = result.content as { type: string; text: string }[];
  expect(JSON.parse(content?.text ?? '{}')).toMatchObject({
    host: `mcp.example.test:${new URL(publicUrl).port}`,
    url: expect.stringContaining(publicUrl),
  });
  await client.close();
  expect(as.errors).toEqual([]);
});

test('a token minted for the internal address is refused at the public one', async () => {
  const internal = await tokenFor(`${app.origin}/mcp`);
  const refused = await listTools(publicUrl, internal);
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
  await refused.body?.cancel();
  const good = await listTools(publicUrl, await tokenFor(publicUrl));
  expect(good.status).toBe(200);
  await good.body?.cancel();
});
