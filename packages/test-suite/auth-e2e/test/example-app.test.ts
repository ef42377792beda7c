/**
 * The example app configured from its environment only, as a user runs it: apps/server started
 * with `node --import tsx src/node.ts` (its `pnpm start` command) in its own directory, with
 * MCP_AUTH_ISSUER naming the real authorization server, MCP_RESOURCE_URL, MCP_AUTH_SCOPES and
 * MCP_CORS_ORIGINS. An unauthenticated request gets the 401 challenge naming the metadata, the
 * metadata names the issuer and the scopes, the official SDK client's OAuth flow (sign-in in
 * Chromium) gets a token for the app and calls its `whoami` tool, the session it opened is bound
 * to alice (bob's token gets 404 on it), and a preflight from the CORS origin is answered 204.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@edge-mcp/test-kit/node';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
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

const APP = join(import.meta.dirname, '..', '..', '..', '..', 'apps', 'server');
/** The browser origin MCP_CORS_ORIGINS lets in (nothing needs to listen there for a preflight). */
const CORS_ORIGIN = 'http://localhost:5173';

/** The example app as a user starts it, in its own process group; its output kept. */
interface App {
  readonly child: ChildProcess;
  readonly resource: string;
  readonly origin: string;
  output(): string;
  stop(): Promise<void>;
}

async function startApp(issuer: string): Promise<App> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node.ts'], {
    cwd: APP,
    detached: true, // its own group: stopped with whatever it started (tsx's esbuild)
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MCP_AUTH_ISSUER: issuer,
      MCP_RESOURCE_URL: resource,
      MCP_AUTH_SCOPES: 'mcp:tools',
      MCP_CORS_ORIGINS: CORS_ORIGIN,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('edge-mcp example serving http://')) resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => reject(new Error(`the app exited:\n${output}`)));
  });
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // the group is gone
    }
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    signal('SIGKILL'); // anything of the group that outlived it
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      listening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the app did not listen:\n${output}`)), 30_000);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { child, resource, origin, output: () => output, stop };
}

let as: AuthorizationServer;
let callback: CallbackServer;
let browser: Browser;
let app: App;

beforeAll(async () => {
  [as, callback, browser] = await Promise.all([
    startAuthorizationServer(),
    startCallbackServer(),
    launchChromium(),
  ]);
  app = await startApp(as.issuer);
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
  const refused = await fetch(app.resource, initialize());
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
  await refused.body?.cancel();
  const metadata = await fetch(metadataUrl);
  expect(metadata.status).toBe(200);
  expect(await metadata.json()).toEqual({
    resource: app.resource,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['mcp:tools'],
  });
});

test('the SDK client signs in as alice, calls whoami; the session it opened is hers', async () => {
  const provider = new ChromiumOAuthProvider('edge-mcp example e2e', callback.redirectUri, (url) =>
    signIn(browser, url, { redirectUri: callback.redirectUri, username: 'alice' }),
  );
  const first = new StreamableHTTPClientTransport(new URL(app.resource), {
    authProvider: provider,
  });
  await expect(
    new Client({ name: 'example-e2e', version: '1.0.0' }).connect(first),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  // Discovered from the 401 alone: the issuer the app was configured with, for the app's
  // resource, with the scopes it advertises.
  const [authorization] = provider.authorizationUrls;
  expect(authorization?.origin).toBe(as.issuer);
  expect(authorization?.searchParams.get('resource')).toBe(app.resource);
  expect(authorization?.searchParams.get('scope')).toBe('mcp:tools');
  await first.finishAuth(provider.code as string);
  expect(provider.saved?.access_token).toEqual(expect.any(String));

  const transport = new StreamableHTTPClientTransport(new URL(app.resource), {
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
  const metadata = await fetchMetadata(as.issuer);
  const registered = await registerPublicClient(metadata, callback.redirectUri);
  const { verifier, challenge } = await pkce();
  const code = codeOf(
    await signIn(
      browser,
      authorizationUrl(metadata, {
        clientId: registered.client_id,
        redirectUri: callback.redirectUri,
        resource: app.resource,
        scope: 'mcp:tools',
        challenge,
      }),
      { redirectUri: callback.redirectUri, username: 'bob' },
    ),
  );
  const bob = await exchangeCode(metadata, {
    clientId: registered.client_id,
    redirectUri: callback.redirectUri,
    code,
    verifier,
    resource: app.resource,
  });
  const call = (token: string) =>
    fetch(app.resource, {
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
  const hijack = await call(bob.access_token);
  expect([hijack.status, (await hijack.json()).error?.code]).toEqual([404, -32001]);
  const hers = await call(provider.saved?.access_token as string);
  expect(hers.status).toBe(200);
  await hers.body?.cancel();
  await client.close();
  expect(as.errors).toEqual([]);
});

test('a preflight from the MCP_CORS_ORIGINS origin is 204; another origin gets 403', async () => {
  const preflight = (origin: string) =>
    fetch(app.resource, {
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
  const challenged = await fetch(app.resource, initialize({ origin: CORS_ORIGIN }));
  expect(challenged.status).toBe(401);
  expect(challenged.headers.get('access-control-allow-origin')).toBe(CORS_ORIGIN);
  expect(challenged.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  await challenged.body?.cancel();
});
