/**
 * Answers go out in one write through the middleware a real Hono app has (logger, cors,
 * bodyLimit): with a Content-Length, not chunked. Hono rebuilds the answer as
 * `new Response(res.body, res)` once a middleware touched `c.res` (cors() does), so the Node
 * adapter gets a stream; it writes a body whose text it knows, or one that is complete at once,
 * whole. Writes are counted on the `ServerResponse` itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHandler, McpServer } from '@edge-mcp/core';
import { HANDLE, type IncomingRequest } from '@edge-mcp/core/adapter';
import { modern } from '@edge-mcp/test-kit';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { logger } from 'hono/logger';
import { describe, expect, test } from 'vitest';
import { mcp } from '../src/hono/index.ts';
import type { NodeServer } from '../src/node/index.ts';
import type { FetchHandler } from '../src/shared/types.ts';
import { bytes, rawExchange, start } from './helpers.ts';

/** What each response did on its way out: `write()` calls and the body given to `end()`. */
interface Writes {
  writes: number;
  ends: number;
  flushed: boolean;
}

/** Counts the writes of every response the server sends. */
function countWrites(server: NodeServer): Writes[] {
  const seen: Writes[] = [];
  server.server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    const entry: Writes = { writes: 0, ends: 0, flushed: false };
    seen.push(entry);
    const { write, end, flushHeaders } = res;
    res.write = function (this: ServerResponse, ...args: unknown[]) {
      entry.writes++;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof res.write;
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      if (args[0] !== undefined && typeof args[0] !== 'function') entry.ends++;
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.end;
    res.flushHeaders = function (this: ServerResponse) {
      entry.flushed = true;
      return flushHeaders.call(this);
    };
  });
  return seen;
}

/** The core's handler, counting requests that reach it as real `Request`s (the Web path). */
function counted(): McpHandler & { fetches: number } {
  const server = new McpServer({ name: 'single-write', version: '1.0.0' });
  server.tool('echo', { inputSchema: { type: 'object' } }, (args) => String(args.text));
  const handler = createMcpHandler(server);
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

/** A Hono app as a real one is: logger everywhere, cors and bodyLimit on /mcp. */
function app(route: (app: Hono) => void): { app: Hono; logged: string[] } {
  const logged: string[] = [];
  const hono = new Hono();
  hono.use(logger((line) => logged.push(line)));
  hono.use('/mcp', cors({ origin: '*', exposeHeaders: ['Mcp-Session-Id'] }));
  hono.use('/mcp', bodyLimit({ maxSize: 1024 * 1024 }));
  route(hono);
  return { app: hono, logged };
}

/** A raw modern echo call, so the answer's head can be read as sent. */
function rawEcho(port: number, text: string): Promise<string> {
  const init = modern('tools/call', { name: 'echo', arguments: { text } }, { id: 7 });
  const body = init.body as string;
  const headers = Object.entries(init.headers as Record<string, string>)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return rawExchange(
    port,
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`,
  );
}

function head(answer: string): string {
  return answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
}

describe('one write through cors() + bodyLimit() + logger()', () => {
  test('edge-mcp mounted in the app: Content-Length, not chunked, one write, on the fast path', async () => {
    const handler = counted();
    const { app: hono, logged } = app((h) => h.all('/mcp', mcp(handler)));
    const server = await start({ fetch: hono.fetch });
    const writes = countWrites(server);
    const answer = await rawEcho(server.port, 'once');
    expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
    expect(head(answer)).toContain('access-control-allow-origin: *');
    expect(head(answer)).toMatch(/\r\ncontent-length: \d+/);
    expect(head(answer)).not.toContain('transfer-encoding');
    expect(answer).toContain('"text":"once"');
    expect(writes).toEqual([{ writes: 0, ends: 1, flushed: false }]);
    // bodyLimit looked at the body (and its Content-Length): the core still got the light request.
    expect(handler.fetches).toBe(0);
    expect(logged).toEqual([
      expect.stringContaining('<-- POST /mcp'),
      expect.stringContaining('--> POST /mcp'),
    ]);
  });

  test('a bare route of the same app (a Response from a string, rebuilt by cors) is one write too', async () => {
    const { app: hono } = app((h) =>
      h.post('/mcp', async (c) =>
        c.body(await c.req.text(), 200, { 'content-type': 'application/json' }),
      ),
    );
    const server = await start({ fetch: hono.fetch });
    const writes = countWrites(server);
    const answer = await rawEcho(server.port, 'bare');
    expect(head(answer)).toMatch(/\r\ncontent-length: \d+/);
    expect(head(answer)).not.toContain('transfer-encoding');
    expect(answer).toContain('"text":"bare"');
    expect(writes).toEqual([{ writes: 0, ends: 1, flushed: false }]);
  });

  test('a chunked upload through bodyLimit still reaches edge-mcp (the Web path) and answers in one write', async () => {
    const handler = counted();
    const { app: hono } = app((h) => h.all('/mcp', mcp(handler)));
    const server = await start({ fetch: hono.fetch });
    const writes = countWrites(server);
    const init = modern('tools/call', { name: 'echo', arguments: { text: 'streamed' } }, { id: 1 });
    const response = await fetch(`${server.url}/mcp`, {
      ...init,
      body: new Blob([init.body as string]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(response.headers.get('content-length')).not.toBeNull();
    expect(await response.text()).toContain('"text":"streamed"');
    expect(handler.fetches).toBe(1);
    expect(writes).toEqual([{ writes: 0, ends: 1, flushed: false }]);
  });
});

describe('bodies that are not whole at once', () => {
  test('a body still being produced streams chunked; its first chunk is not held back for the rest', async () => {
    let release: () => void = () => {};
    const later = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler: FetchHandler = {
      fetch: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(bytes('first;'));
              await later;
              controller.enqueue(bytes('second'));
              controller.close();
            },
          }),
          { headers: { 'content-type': 'application/x-ndjson' } },
        ),
    };
    const server = await start(handler);
    const response = await fetch(`${server.url}/any`);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first;');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toBe('second');
  });

  test('several chunks ready at once go out whole; a body that fails before its first chunk is a 500', async () => {
    const server = await start({
      fetch: (request) => {
        if (new URL(request.url).pathname === '/fail') {
          return new Response(
            new ReadableStream({
              pull(controller) {
                controller.error(new Error('broken body'));
              },
            }),
          );
        }
        return new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              for (const part of ['a', 'b', 'c']) controller.enqueue(bytes(part));
              controller.close();
            },
          }),
        );
      },
    });
    const writes = countWrites(server);
    const whole = await fetch(`${server.url}/whole`);
    expect(whole.headers.get('content-length')).toBe('3');
    expect(await whole.text()).toBe('abc');
    expect(writes[0]).toEqual({ writes: 0, ends: 1, flushed: false });
    const failed = await fetch(`${server.url}/fail`);
    expect(failed.status).toBe(500);
  });
});
