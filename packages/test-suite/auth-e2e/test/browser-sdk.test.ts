/**
 * The official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`), bundled for the
 * browser with esbuild and loaded by a page on another loopback origin in a real headless
 * Chromium, against the core handler on the Node adapter: it connects (2026-07-28 through its
 * `server/discover` probe, and the legacy 2025-11-25 `initialize` session), lists tools and calls
 * one, with the `cors` option; without it, it cannot connect.
 */
import type { AuthInfo } from '@edge-mcp/core';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../src/browser.ts';
import { type PageServer, startPageServer } from '../src/page-server.ts';
import { bundleSdkClient } from '../src/sdk-bundle.ts';
import { type Served, startMcp, TOKEN } from './browser-support.ts';

let browser: Browser;
/** One page on the site's origin, the SDK loaded; each test connects new clients in it. */
let page: Page;
let site: PageServer;
let open: Served;
let closed: Served;
let authed: Served;

beforeAll(async () => {
  const bundle = await bundleSdkClient();
  [browser, site] = await Promise.all([
    launchChromium(),
    startPageServer({
      files: { '/mcp-sdk.js': { contentType: 'text/javascript', body: bundle } },
      scripts: ['/mcp-sdk.js'],
    }),
  ]);
  page = await browser.newPage();
  await page.goto(site.url);
  expect(await page.evaluate(() => typeof (globalThis as { McpSdk?: unknown }).McpSdk)).toBe(
    'object',
  );
  const origins = [site.origin];
  const verify = (token: string): AuthInfo | undefined =>
    token === TOKEN ? { principal: 'alice', scopes: ['mcp:tools'] } : undefined;
  [open, closed, authed] = await Promise.all([
    startMcp(() => ({ cors: { origins } })),
    startMcp(),
    startMcp((url) => ({
      cors: { origins },
      auth: { verify, resource: url, authorizationServers: ['http://127.0.0.1:9/'] },
    })),
  ]);
});

afterAll(async () => {
  await page?.close();
  await Promise.all([browser?.close(), site?.close()]);
  await Promise.all([open, closed, authed].map((served) => served?.close()));
});

interface Connected {
  /** The step that threw, and what it threw. */
  readonly failedAt?: string;
  readonly error?: string;
  readonly era?: string | undefined;
  readonly version?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly tools?: string[];
}

interface ConnectOptions {
  readonly url: string;
  /** The SDK's `versionNegotiation.mode`: `'auto'` probes `server/discover` (2026-07-28). */
  readonly mode: 'legacy' | 'auto';
  readonly token?: string;
}

/**
 * In the page: `new Client()`, `connect()` over `StreamableHTTPClientTransport` (a bearer token
 * through its `authProvider` when given), `listTools()`; the client stays in the page as
 * `mcpClient` (closed when a step fails).
 */
function connect(page: Page, options: ConnectOptions): Promise<Connected> {
  return page.evaluate(async ({ url, mode, token }) => {
    // What the bundle defines (SDK_GLOBAL).
    const sdk = (
      globalThis as unknown as {
        McpSdk: {
          Client: typeof Client;
          StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
        };
      }
    ).McpSdk;
    const page = globalThis as unknown as {
      mcpClient?: Client;
      mcpTransport?: StreamableHTTPClientTransport;
      mcpNotifications: string[];
    };
    page.mcpNotifications = [];
    const client = new sdk.Client(
      { name: 'browser-sdk-e2e', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      page.mcpNotifications.push(notification.method);
    });
    const transport = new sdk.StreamableHTTPClientTransport(
      new URL(url),
      token === undefined ? {} : { authProvider: { token: async () => token } },
    );
    let step = 'connect';
    try {
      await client.connect(transport);
      step = 'listTools';
      const { tools } = await client.listTools();
      page.mcpClient = client;
      page.mcpTransport = transport;
      return {
        era: client.getProtocolEra(),
        version: client.getNegotiatedProtocolVersion(),
        sessionId: transport.sessionId,
        tools: tools.map((tool) => tool.name),
      };
    } catch (error) {
      await client.close().catch(() => {});
      return { failedAt: step, error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  }, options);
}

/** In the page: `mcpClient.callTool()`, the first text block or what it threw. */
function callTool(
  page: Page,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text?: string; error?: string }> {
  return page.evaluate(
    async ([name, args]) => {
      const client = (globalThis as unknown as { mcpClient: Client }).mcpClient;
      try {
        const result = await client.callTool({ name, arguments: args });
        const [first] = result.content as { type: string; text?: string }[];
        return { text: first?.text ?? '' };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    },
    [name, args] as const,
  );
}

/** In the page: waits (up to 5 s) for the client to have received a tools/list_changed. */
function listChangedArrived(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    const page = globalThis as unknown as { mcpNotifications: string[] };
    for (let waited = 0; waited < 5_000; waited += 50) {
      if (page.mcpNotifications.length > 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  });
}

/** In the page: DELETE the session (when there is one), then `close()`. */
function closeClient(page: Page): Promise<void> {
  return page.evaluate(async () => {
    const page = globalThis as unknown as {
      mcpClient: Client;
      mcpTransport: StreamableHTTPClientTransport;
    };
    if (page.mcpTransport.sessionId !== undefined) await page.mcpTransport.terminateSession();
    await page.mcpClient.close();
  });
}

describe('with cors', () => {
  test('2026-07-28: the server/discover probe passes the preflight, tools listed and called', async () => {
    open.arrived.length = 0;
    const connected = await connect(page, { url: open.url, mode: 'auto' });
    // In a browser the SDK takes a failed probe (a CORS TypeError) as a legacy server and falls
    // back to initialize: 'modern' here means the probe itself made it through CORS.
    expect(connected).toEqual({
      era: 'modern',
      version: '2026-07-28',
      sessionId: undefined,
      tools: ['echo', 'whoami'],
    });
    expect(await callTool(page, 'echo', { text: 'sdk' })).toEqual({ text: 'sdk' });
    await closeClient(page);
    expect(open.arrived).toContain('OPTIONS /mcp');
    expect(open.arrived.filter((line) => line !== 'OPTIONS /mcp')).toEqual(
      Array(3).fill('POST /mcp'),
    );
  });

  test('2025-11-25: a session (its id read from the exposed header), tools/call, the GET stream, DELETE', async () => {
    open.arrived.length = 0;
    const connected = await connect(page, { url: open.url, mode: 'legacy' });
    expect(connected).toMatchObject({
      era: 'legacy',
      version: '2025-11-25',
      tools: ['echo', 'whoami'],
    });
    expect(connected.sessionId).toMatch(/.+/);
    expect(await callTool(page, 'echo', { text: 'sdk', region: 'eu' })).toEqual({
      text: 'sdk @eu',
    });
    // The SDK opened the session's GET stream after initialize; a notification comes through it.
    open.mcp.notifyListChanged('tools');
    expect(await listChangedArrived(page)).toBe(true);
    await closeClient(page);
    expect(open.arrived).toContain('GET /mcp');
    expect(open.arrived.at(-1)).toBe('DELETE /mcp');
  });

  test('known SDK 2.4.0 limitation: in a browser it sends no Mcp-Param-* headers (x-mcp-header tools are refused)', async () => {
    expect(await connect(page, { url: open.url, mode: 'auto' })).toMatchObject({
      era: 'modern',
    });
    // callTool() mirrors x-mcp-header arguments only when not in a browser
    // (`detectProbeEnvironment() !== 'browser'`); the core requires the header (SEP-2243), as
    // the SDK's own server does. The raw-fetch test shows the header passes CORS when sent.
    const refused = await callTool(page, 'echo', { text: 'sdk', region: 'eu' });
    expect(refused.error).toMatch(/mcp-param-region header is required/i);
    await closeClient(page);
  });

  test('with auth: a bearer token from the authProvider, both eras, as alice', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const connected = await connect(page, { url: authed.url, mode, token: TOKEN });
      expect(connected.era).toBe(mode === 'auto' ? 'modern' : 'legacy');
      expect(await callTool(page, 'whoami', {})).toEqual({ text: 'alice' });
      await closeClient(page);
    }
    const refused = await connect(page, { url: authed.url, mode: 'auto' });
    expect(refused.failedAt).toBe('connect');
    expect(refused.error).toContain('the server requires authorization (HTTP 401)');
  });
});

describe('without cors', () => {
  test('neither era connects: the browser refuses every preflight', async () => {
    closed.arrived.length = 0;
    for (const mode of ['auto', 'legacy'] as const) {
      const refused = await connect(page, { url: closed.url, mode });
      expect(refused.failedAt).toBe('connect');
      expect(refused.error).toMatch(/Failed to fetch/);
    }
    // 'auto': the probe's preflight, then (taking the CORS TypeError for a legacy server) the
    // initialize preflight; 'legacy': the initialize preflight. Nothing else reached the server.
    expect(closed.arrived).toEqual(Array(3).fill('OPTIONS /mcp'));
  });
});
