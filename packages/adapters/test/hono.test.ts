import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { legacyRequest, modern, openSession, readAnswer } from '@edge-mcp/test-kit';
import { Hono } from 'hono';
import { afterEach, describe, expect, test } from 'vitest';
import { mcp } from '../src/hono/index.ts';
import { toNodeListener } from '../src/node/index.ts';
import type { FetchHandler } from '../src/shared/types.ts';
import { start } from './helpers.ts';

/** Stands in for the MCP handler: reports what reached it. */
const handler: FetchHandler = {
  async fetch(request) {
    return Response.json({
      method: request.method,
      path: new URL(request.url).pathname,
      body: await request.text(),
      hasSignal: request.signal instanceof AbortSignal,
    });
  },
};

function createApp(): Hono {
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.all('/mcp', mcp(handler));
  return app;
}

async function checkRoutes(base: string): Promise<void> {
  const health = await fetch(`${base}/health`);
  expect(await health.json()).toEqual({ ok: true });
  const post = await fetch(`${base}/mcp`, { method: 'POST', body: '{"jsonrpc":"2.0"}' });
  expect(await post.json()).toEqual({
    method: 'POST',
    path: '/mcp',
    body: '{"jsonrpc":"2.0"}',
    hasSignal: true,
  });
  const del = await fetch(`${base}/mcp`, { method: 'DELETE' });
  expect(await del.json()).toMatchObject({ method: 'DELETE', path: '/mcp' });
  expect((await fetch(`${base}/nope`)).status).toBe(404);
}

let plain: Server | undefined;
afterEach(async () => {
  plain?.closeAllConnections();
  await new Promise((resolve) => plain?.close(resolve) ?? resolve(undefined));
  plain = undefined;
});

describe('Hono entry', () => {
  test('mcp() mounted next to other routes, served with serve({ fetch: app.fetch })', async () => {
    const app = createApp();
    const { url } = await start({ fetch: app.fetch });
    await checkRoutes(url);
  });

  test('the app itself as handler of toNodeListener()', async () => {
    plain = createServer(toNodeListener(createApp()));
    await new Promise<void>((resolve) => plain?.listen(0, '127.0.0.1', resolve));
    await checkRoutes(`http://127.0.0.1:${(plain.address() as AddressInfo).port}`);
  });
});

describe('the core handler mounted by mcp() on another path', () => {
  function mounted(): Hono {
    const server = new McpServer({ name: 'mounted', version: '1' });
    server.tool('echo', {}, () => 'mounted');
    // The handler's own path stays the default /mcp: Hono has routed the request, so it does not apply.
    const app = new Hono();
    app.all('/api/v1/mcp', mcp(createMcpHandler(server)));
    return app;
  }

  test('on the Node adapter (the lazy Request and fast entry)', async () => {
    const { url } = await start({ fetch: mounted().fetch });
    const answer = await readAnswer(
      await fetch(`${url}/api/v1/mcp`, modern('tools/call', { name: 'echo' })),
    );
    expect(answer.message.result.content[0].text).toBe('mounted');
  });

  test('with a real Request (the Web runtimes)', async () => {
    const request = new Request(
      'http://127.0.0.1/api/v1/mcp',
      modern('tools/call', { name: 'echo' }),
    );
    const answer = await readAnswer(await mounted().fetch(request));
    expect(answer.message.result.content[0].text).toBe('mounted');
  });
});

describe('a principal from earlier middleware: mcp(handler, { auth })', () => {
  function app(): Hono {
    const server = new McpServer({ name: 'hono-auth', version: '1' });
    server.tool('whoami', {}, (_args, ctx) => String(ctx.auth?.principal));
    const handler = createMcpHandler(server, {
      // No verify: the middleware in front vouches for the principal.
      auth: { resource: 'http://127.0.0.1/api/mcp', authorizationServers: ['http://127.0.0.1:9'] },
    });
    const hono = new Hono();
    hono.all(
      '/api/mcp',
      mcp(handler, {
        auth: async (c) => {
          const user = c.req.header('x-user');
          return user ? { principal: user, scopes: [] } : undefined;
        },
      }),
    );
    return hono;
  }

  test('reaches ctx.auth; without one the handler answers its 401 challenge', async () => {
    const hono = app();
    const call = (headers: Record<string, string>) =>
      hono.fetch(
        new Request(
          'http://127.0.0.1/api/mcp',
          modern('tools/call', { name: 'whoami' }, { headers }),
        ),
      );
    const answer = await readAnswer(await call({ 'x-user': 'alice' }));
    expect(answer.message.result.content[0].text).toBe('alice');
    const refused = await call({});
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/api/mcp"',
    );
  });

  test("binds sessions to it: bob cannot use alice's session", async () => {
    const hono = app();
    const as = (user: string) => ({
      fetch: async (request: Request): Promise<Response> => {
        const headers = new Headers(request.headers);
        headers.set('x-user', user);
        return hono.fetch(
          new Request('http://127.0.0.1/api/mcp', {
            method: request.method,
            headers,
            body: request.body,
            duplex: 'half',
          } as RequestInit),
        );
      },
    });
    const session = await openSession(as('alice'));
    const mine = await as('alice').fetch(legacyRequest('tools/call', { name: 'whoami' }, session));
    expect((await readAnswer(mine)).message.result.content[0].text).toBe('alice');
    const theirs = await as('bob').fetch(legacyRequest('tools/call', { name: 'whoami' }, session));
    expect(theirs.status).toBe(404);
  });
});
