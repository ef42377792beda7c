import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { modern, readAnswer } from '@edge-mcp/test-kit';
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
