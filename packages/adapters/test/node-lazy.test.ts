/**
 * The Node adapter's lazy Request and the light Response `mcp()` returns: a Hono app mounting the
 * core gets the fast path (no Request or Response built), and whatever middleware or a plain
 * fetch handler asks of either object still works, by building the real one.
 */
import { createMcpHandler, type McpHandler, McpServer } from '@edge-mcp/core';
import { HANDLE, type IncomingRequest } from '@edge-mcp/core/adapter';
import { modern } from '@edge-mcp/test-kit';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { describe, expect, test } from 'vitest';
import { mcp } from '../src/hono/index.ts';
import { start } from './helpers.ts';

function core(): McpHandler {
  const server = new McpServer({ name: 'lazy', version: '1.0.0' });
  server.tool('echo', { inputSchema: { type: 'object' } }, (args) => String(args.text));
  return createMcpHandler(server);
}

/**
 * The core's handler with the Web path counted: requests that reach it as real `Request`s
 * (through `fetch`, or the fast entry given a Request); the fast path hands it the light request.
 */
function counted(handler: McpHandler): McpHandler & { fetches: number } {
  const spy = {
    ...handler,
    fetches: 0,
    fetch(request: Request) {
      spy.fetches++;
      return handler.fetch(request);
    },
    [HANDLE](request: IncomingRequest, routed?: boolean) {
      if (request instanceof Request) spy.fetches++;
      return handler[HANDLE](request, routed);
    },
  };
  return spy;
}

/** A modern echo call; `chunked` sends the body as a stream (no Content-Length). */
function echo(url: string, text: string, chunked = false): Promise<Response> {
  const init = modern('tools/call', { name: 'echo', arguments: { text } }, { id: 1 });
  if (chunked)
    Object.assign(init, { body: new Blob([init.body as string]).stream(), duplex: 'half' });
  return fetch(`${url}/mcp`, init);
}

async function echoed(response: Response): Promise<string> {
  expect(response.status).toBe(200);
  const message = (await response.json()) as { result: { content: Array<{ text: string }> } };
  return message.result.content[0]?.text ?? '';
}

describe('Hono app on the Node adapter', () => {
  test('mcp() answers through handle(); middleware reading headers and setting them after next() works', async () => {
    const handler = counted(core());
    const app = new Hono();
    app.use('/mcp', async (c, next) => {
      const method = c.req.header('mcp-method');
      await next();
      c.res.headers.set('x-method-seen', String(method));
    });
    app.all('/mcp', mcp(handler));
    const { url } = await start({ fetch: app.fetch });
    const response = await echo(url, 'fast');
    expect(response.headers.get('x-method-seen')).toBe('tools/call');
    expect(response.headers.get('content-length')).not.toBeNull();
    expect(await echoed(response)).toBe('fast');
    expect(handler.fetches).toBe(0);
  });

  test('a middleware that reads the body makes mcp() fall back to the Web path with the real Request', async () => {
    const handler = counted(core());
    const app = new Hono();
    const seen: string[] = [];
    app.use('/mcp', async (c, next) => {
      seen.push(await c.req.raw.clone().text());
      await next();
    });
    app.all('/mcp', mcp(handler));
    const { url } = await start({ fetch: app.fetch });
    expect(await echoed(await echo(url, 'cloned'))).toBe('cloned');
    expect(seen[0]).toContain('"cloned"');
    expect(handler.fetches).toBe(1);
  });

  test('a middleware that reads the light Response gets the real one, and so does the client', async () => {
    const app = new Hono();
    const logged: string[] = [];
    app.use('/mcp', async (c, next) => {
      await next();
      expect(c.res).toBeInstanceOf(Response);
      logged.push(await c.res.clone().text());
    });
    app.all('/mcp', mcp(core()));
    const { url } = await start({ fetch: app.fetch });
    expect(await echoed(await echo(url, 'logged'))).toBe('logged');
    expect(JSON.parse(logged[0] ?? '{}').result.content[0].text).toBe('logged');
  });
});

describe('Hono middleware that rebuilds the request', () => {
  test('bodyLimit (new Request(c.req.raw, { body })) in front of mcp() works', async () => {
    const handler = counted(core());
    const app = new Hono();
    app.use('/mcp', bodyLimit({ maxSize: 1024 }));
    app.all('/mcp', mcp(handler));
    const { url } = await start({ fetch: app.fetch });
    // Chunked: with no Content-Length to check, bodyLimit wraps the body in a new Request.
    expect(await echoed(await echo(url, 'limited', true))).toBe('limited');
    // The request it rebuilt is a real one: mcp() takes the Web path with it.
    expect(handler.fetches).toBe(1);
    const tooLarge = await echo(url, 'x'.repeat(2000), true);
    expect(tooLarge.status).toBe(413);
  });
});

describe('plain fetch handler on the Node adapter', () => {
  test('the lazy Request is a Request: headers, body, clone, and a copy made from it', async () => {
    const { url } = await start({
      async fetch(request) {
        const cloned = await request.clone().json();
        // Node's Request reads its input's internal state: the lazy one must lend it.
        const copy = new Request(request, { headers: { 'x-copy': '1' } });
        const copied = await copy.json();
        return Response.json({
          isRequest: request instanceof Request,
          method: request.method,
          path: new URL(request.url).pathname,
          header: request.headers.get('x-test'),
          cloned,
          copied,
          copy: [copy.method, copy.url === request.url, copy.headers.get('x-copy')],
          used: request.bodyUsed,
        });
      },
    });
    const response = await fetch(`${url}/any?q=1`, {
      method: 'PUT',
      headers: { 'x-test': 'yes', 'content-type': 'application/json' },
      body: '{"n":1}',
    });
    expect(await response.json()).toEqual({
      isRequest: true,
      method: 'PUT',
      path: '/any',
      header: 'yes',
      cloned: { n: 1 },
      copied: { n: 1 },
      copy: ['PUT', true, '1'],
      used: true,
    });
  });
});
