/**
 * apps/worker's second entry (src/oauth.ts, wrangler.oauth.jsonc), as `pnpm start:oauth` runs it:
 * the example MCP server behind @cloudflare/workers-oauth-provider 1.2.3 in `wrangler dev`
 * (workerd, Durable Objects, local KV), nothing mocked. The provider is the authorization server
 * and guards /mcp; edge-mcp's createSessionWorker is its apiHandler and maps `ctx.props` to the
 * principal with its `auth` option.
 *
 * The official SDK client (1.32.2) runs the whole flow against the Worker alone: 401 → Protected
 * Resource Metadata (RFC 9728) → authorization server metadata (RFC 8414) → dynamic client
 * registration (RFC 7591) → authorization code with PKCE and a resource indicator, the app's
 * demo consent page answered by headless Chromium as alice → token → tools/call of `auth_info`,
 * which reports `ctx.auth` as the handler sees it in the session's Durable Object. Then bob signs
 * in too, and every request of his on alice's session (POST, GET, DELETE, a forged principal
 * header) is 404, while alice's still works.
 *
 * What breaks it (each tried): without createSessionWorker's `auth` mapping in src/oauth.ts every
 * authorized request gets the handler's 401 (the SDK: "Server returned 401 after successful
 * authentication"), 5 tests fail; without the handler's `auth` option as well, the calls report
 * `principal: null` and bob's requests on alice's session are served (200); with the mapping but
 * without the handler's `auth` option, the 403 for a missing scope has no WWW-Authenticate.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { legacy, legacyDelete, legacyGet, modern, readAnswer, until } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  authorizationUrl,
  type CallbackServer,
  codeOf,
  exchangeCode,
  fetchMetadata,
  launchChromium,
  pkce,
  registerPublicClient,
  startCallbackServer,
  type TokenResponse,
} from '../src/index.ts';
import { ChromiumOAuthProvider } from './sdk-provider.ts';

const APP = join(import.meta.dirname, '..', '..', '..', '..', 'apps', 'worker');
/** The app's own wrangler, as `pnpm start:oauth` runs it. */
const WRANGLER = join(
  dirname(createRequire(join(APP, 'package.json')).resolve('wrangler/package.json')),
  'bin',
  'wrangler.js',
);

/** `wrangler dev` of the oauth entry on 127.0.0.1, in its own process group, with fresh state. */
interface Worker {
  readonly origin: string;
  readonly resource: string;
  output(): string;
  stop(): Promise<void>;
}

async function startWorker(): Promise<Worker> {
  const port = await freePort();
  const inspector = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resource = `${origin}/mcp`;
  // Durable Objects and the provider's KV, removed when the Worker stops.
  const state = mkdtempSync(join(tmpdir(), 'edge-mcp-oauth-worker-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      WRANGLER,
      'dev',
      '-c',
      'wrangler.oauth.jsonc',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--var',
      `MCP_RESOURCE_URL:${resource}`,
      '--show-interactive-dev-session=false',
      '--persist-to',
      state,
    ],
    {
      cwd: APP,
      detached: true, // its own group: stopped with the workerd it starts
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_SEND_ERROR_REPORTS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
      const timer = setTimeout(() => signal('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    signal('SIGKILL'); // whatever of the group outlived it
    rmSync(state, { recursive: true, force: true });
  };
  const ready = async () => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error('wrangler dev exited before it was ready');
    return fetch(`${origin}/health`).then(
      (response) => response.ok,
      () => false, // not listening yet
    );
  };
  try {
    await until(ready, 'wrangler dev to answer /health', 90_000, 200);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}:\n${output}`);
  }
  return { origin, resource, output: () => output, stop };
}

/**
 * Answers the app's demo consent page in Chromium as a user would: pick the user, press Allow
 * (or Deny), and hand back where the Worker redirected (the client's redirect URI).
 */
async function consent(
  browser: Browser,
  authorizationUrl: URL,
  options: { redirectUri: string; user: string; decision?: 'approve' | 'deny' },
): Promise<URL> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  try {
    await page.goto(authorizationUrl.href);
    const body = (await page.textContent('body')) ?? '';
    if (!body.includes('DEMO SIGN-IN'))
      throw new Error(`no demo consent page at ${page.url()}: ${body.trim().slice(0, 500)}`);
    await page.check(`input[name="user"][value="${options.user}"]`);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(options.redirectUri), { waitUntil: 'load' }),
      page.click(`button[value="${options.decision ?? 'approve'}"]`),
    ]);
    return new URL(page.url());
  } finally {
    await context.close();
  }
}

let worker: Worker;
let callback: CallbackServer;
let browser: Browser;
/** Every HTTP exchange the SDK made: `METHOD url status`. */
const exchanges: string[] = [];

const logged: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  exchanges.push(`${init?.method ?? 'GET'} ${url.origin}${url.pathname} ${response.status}`);
  return response;
};

beforeAll(async () => {
  [worker, callback, browser] = await Promise.all([
    startWorker(),
    startCallbackServer(),
    launchChromium(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close(), callback?.close()]);
});

/** Signs `user` in with the SDK's OAuth flow; the tokens are in the returned provider. */
async function signInWithSdk(user: string): Promise<ChromiumOAuthProvider> {
  const provider = new ChromiumOAuthProvider(
    `edge-mcp worker e2e (${user})`,
    callback.redirectUri,
    (url) => consent(browser, url, { redirectUri: callback.redirectUri, user }),
  );
  const first = new StreamableHTTPClientTransport(new URL(worker.resource), {
    authProvider: provider,
    fetch: logged,
  });
  await expect(
    new Client({ name: 'worker-oauth-e2e', version: '1.0.0' }).connect(first),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.code, worker.output()).toEqual(expect.any(String));
  await first.finishAuth(provider.code as string);
  expect(provider.saved?.access_token).toEqual(expect.any(String));
  return provider;
}

function authInfoOf(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first?.text ?? '{}');
}

const CLIENT = { name: 'raw', version: '1' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test("the provider's 401 names its RFC 9728 metadata, which names the Worker as the authorization server", async () => {
  const metadataUrl = `${worker.origin}/.well-known/oauth-protected-resource/mcp`;
  const refused = await fetch(
    worker.resource,
    legacy('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT }),
  );
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(
    `Bearer realm="OAuth", resource_metadata="${metadataUrl}", scope="mcp:tools"`,
  );
  await refused.body?.cancel();
  const metadata = await fetch(metadataUrl);
  expect(metadata.status).toBe(200);
  expect(await metadata.json()).toEqual({
    resource: worker.resource,
    authorization_servers: [worker.origin],
    scopes_supported: ['mcp:tools'],
    bearer_methods_supported: ['header'],
    resource_name: 'edge-mcp example',
  });
  // The provider serves only the path-suffixed document (the resource has a path).
  const root = await fetch(`${worker.origin}/.well-known/oauth-protected-resource`);
  expect(root.status).toBe(404);
  await root.body?.cancel();
  const server = await fetch(`${worker.origin}/.well-known/oauth-authorization-server`);
  expect(await server.json()).toMatchObject({
    issuer: worker.origin,
    authorization_endpoint: `${worker.origin}/authorize`,
    token_endpoint: `${worker.origin}/token`,
    registration_endpoint: `${worker.origin}/register`,
    code_challenge_methods_supported: ['S256'],
    protected_resources: [worker.resource],
  });
  // A token the provider never issued: 401 invalid_token, with the same metadata URL.
  const forged = await fetch(
    worker.resource,
    modern('tools/list', {}, { headers: bearer('a:b:c') }),
  );
  expect(forged.status).toBe(401);
  expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
  expect(forged.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
  await forged.body?.cancel();
});

let alice: ChromiumOAuthProvider;
let aliceSession: string;

test('the SDK client signs in as alice on the demo consent page and calls auth_info in her session', async () => {
  exchanges.length = 0;
  alice = await signInWithSdk('alice');
  // Discovered from the 401 alone: this Worker is the authorization server, for this resource.
  expect(alice.information?.client_id).toEqual(expect.any(String));
  const [authorization] = alice.authorizationUrls;
  expect(authorization?.origin).toBe(worker.origin);
  expect(authorization?.pathname).toBe('/authorize');
  expect(authorization?.searchParams.get('resource')).toBe(worker.resource);
  expect(authorization?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorization?.searchParams.get('scope')).toBe('mcp:tools');

  const transport = new StreamableHTTPClientTransport(new URL(worker.resource), {
    authProvider: alice,
    fetch: logged,
  });
  const client = new Client({ name: 'worker-oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  aliceSession = transport.sessionId as string;
  expect(aliceSession).toEqual(expect.any(String));
  // A legacy session: the call runs in the session's Durable Object, which got the principal
  // from the Worker across the hop.
  expect(authInfoOf(await client.callTool({ name: 'auth_info', arguments: {} }))).toEqual({
    principal: 'alice',
    scopes: ['mcp:tools'],
    clientId: alice.information?.client_id,
    session: aliceSession,
    protocolVersion: '2025-11-25',
  });

  const steps = [
    `POST ${worker.resource} 401`,
    `GET ${worker.origin}/.well-known/oauth-protected-resource/mcp 200`,
    `GET ${worker.origin}/.well-known/oauth-authorization-server 200`,
    `POST ${worker.origin}/register 201`,
    `POST ${worker.origin}/token 200`,
    `POST ${worker.resource} 200`,
  ];
  const positions = steps.map((step) => exchanges.indexOf(step));
  expect(positions, exchanges.join('\n')).not.toContain(-1);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  // The transport leaves the session open (no close): bob tries it next.
});

test('2026-07-28: a stateless call in the isolate sees alice too', async () => {
  const token = alice.saved?.access_token as string;
  const answer = await readAnswer(
    await fetch(
      worker.resource,
      modern('tools/call', { name: 'auth_info', arguments: {} }, { headers: bearer(token) }),
    ),
  );
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.message.result?.content?.[0]?.text ?? '{}')).toEqual({
    principal: 'alice',
    scopes: ['mcp:tools'],
    clientId: alice.information?.client_id,
    session: null,
    protocolVersion: '2026-07-28',
  });
});

test("bob signs in too; his token on alice's session is 404 (POST, GET, DELETE, forged principal)", async () => {
  const bob = await signInWithSdk('bob');
  expect(bob.information?.client_id).not.toBe(alice.information?.client_id);
  const bobToken = bob.saved?.access_token as string;
  const aliceToken = alice.saved?.access_token as string;
  const version = { version: '2025-11-25' };
  const call = (token: string, extra: Record<string, string> = {}) =>
    fetch(
      worker.resource,
      legacy('tools/call', { name: 'auth_info', arguments: {} }, aliceSession, {
        ...version,
        headers: { ...bearer(token), ...extra },
      }),
    );
  const notFound = async (response: Response) => {
    const answer = await readAnswer(response);
    return [answer.status, answer.message.error?.code];
  };

  expect(await notFound(await call(bobToken))).toEqual([404, -32001]);
  // The principal header the Worker hands the object cannot be sent from outside.
  const forged = encodeURIComponent(JSON.stringify({ principal: 'alice', scopes: ['mcp:tools'] }));
  expect(await notFound(await call(bobToken, { 'edge-mcp-principal': forged }))).toEqual([
    404, -32001,
  ]);
  const stream = await fetch(
    worker.resource,
    legacyGet(aliceSession, undefined, { ...version, headers: bearer(bobToken) }),
  );
  expect(stream.status).toBe(404);
  await stream.body?.cancel();
  const deleted = await fetch(
    worker.resource,
    legacyDelete(aliceSession, { ...version, headers: bearer(bobToken) }),
  );
  expect(deleted.status).toBe(404);
  await deleted.body?.cancel();
  // Without a token the provider answers before the session is looked at.
  const anonymous = await fetch(
    worker.resource,
    legacy('tools/call', { name: 'auth_info', arguments: {} }, aliceSession, version),
  );
  expect(anonymous.status).toBe(401);
  await anonymous.body?.cancel();

  // Alice's session is untouched and still hers.
  const hers = await readAnswer(await call(aliceToken));
  expect(hers.status).toBe(200);
  expect(JSON.parse(hers.message.result?.content?.[0]?.text ?? '{}')).toMatchObject({
    principal: 'alice',
    session: aliceSession,
  });
  // Bob's own session reports bob.
  const own = new Client({ name: 'worker-oauth-e2e', version: '1.0.0' });
  await own.connect(
    new StreamableHTTPClientTransport(new URL(worker.resource), { authProvider: bob }),
  );
  expect(authInfoOf(await own.callTool({ name: 'auth_info', arguments: {} }))).toMatchObject({
    principal: 'bob',
    clientId: bob.information?.client_id,
  });
  await own.close();
});

/** The flow by hand (registration, PKCE, Chromium on the consent page, token) for `scope`. */
async function tokenByHand(
  user: string,
  scope: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ redirect: URL; tokens?: TokenResponse }> {
  const metadata = await fetchMetadata(worker.origin);
  const client = await registerPublicClient(metadata, callback.redirectUri, `by hand (${user})`);
  const { verifier, challenge } = await pkce();
  const state = crypto.randomUUID();
  const url = authorizationUrl(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    resource: worker.resource,
    scope,
    challenge,
    state,
  });
  const redirect = await consent(browser, url, {
    redirectUri: callback.redirectUri,
    user,
    decision,
  });
  if (decision === 'deny') return { redirect };
  const tokens = await exchangeCode(metadata, {
    clientId: client.client_id,
    redirectUri: callback.redirectUri,
    code: codeOf(redirect, state),
    verifier,
    resource: worker.resource,
  });
  return { redirect, tokens };
}

test('scopes: alice may be granted mcp:admin, bob may not; his call gets 403 naming the metadata (step-up)', async () => {
  const call = (token: string, name: string) =>
    fetch(
      worker.resource,
      modern('tools/call', { name, arguments: {} }, { headers: bearer(token) }),
    );
  const alice = (await tokenByHand('alice', 'mcp:tools mcp:admin')).tokens as TokenResponse;
  const granted = await readAnswer(await call(alice.access_token, 'auth_info'));
  expect(JSON.parse(granted.message.result?.content?.[0]?.text ?? '{}').scopes).toEqual([
    'mcp:tools',
    'mcp:admin',
  ]);
  const report = await readAnswer(await call(alice.access_token, 'admin_report'));
  expect([report.status, report.message.result?.content?.[0]?.text]).toEqual([
    200,
    'admin report for alice',
  ]);

  const bob = (await tokenByHand('bob', 'mcp:tools mcp:admin')).tokens as TokenResponse;
  const refused = await call(bob.access_token, 'admin_report');
  expect(refused.status).toBe(403);
  // The handler's own challenge, consistent with the provider's 401: the same metadata URL.
  const challenge = refused.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain('scope="mcp:admin"');
  expect(challenge).toContain(
    `resource_metadata="${worker.origin}/.well-known/oauth-protected-resource/mcp"`,
  );
  await refused.body?.cancel();
});

test('SDK 1.32.2 on that 403 refreshes its token (same scopes) rather than asking for mcp:admin, and gives up', async () => {
  // A known limit of the client, not of the server: its step-up tries the refresh token first,
  // which the provider answers with a token of the scopes already granted, so the retry gets
  // the same 403 and the user is never asked for the new scope.
  const before = alice.authorizationUrls.length;
  const client = new Client({ name: 'worker-oauth-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(worker.resource), { authProvider: alice }),
  );
  await expect(client.callTool({ name: 'admin_report', arguments: {} })).rejects.toThrow(
    /403 after trying upscoping/,
  );
  expect(alice.authorizationUrls).toHaveLength(before);
  await client.close();
});

test('CORS: the provider answers any preflight on /mcp; the handler still refuses an origin it does not allow', async () => {
  const token = alice.saved?.access_token as string;
  const origin = 'https://app.example.com';
  const preflight = await fetch(worker.resource, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
  await preflight.body?.cancel();
  // A bodiless request (alice's session stream): on workerd, a POST answered before its body
  // was read can upset the next request (see the shared suite's auth group).
  const request = await fetch(
    worker.resource,
    legacyGet(aliceSession, undefined, {
      version: '2025-11-25',
      headers: { ...bearer(token), origin },
    }),
  );
  expect(request.status).toBe(403);
  await request.body?.cancel();
});

test('Deny on the consent page sends the client access_denied', async () => {
  const { redirect } = await tokenByHand('alice', 'mcp:tools', 'deny');
  expect(redirect.searchParams.get('error')).toBe('access_denied');
  expect(redirect.searchParams.get('state')).toEqual(expect.any(String));
  expect(redirect.searchParams.get('code')).toBeNull();
});
