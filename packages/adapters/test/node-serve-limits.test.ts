/**
 * What `serve()` bounds on Node: the time a client has to send its request (headers, then the
 * whole request), the connections it may hold, and a refused body that is not read to its end.
 * Small timeouts here; the defaults are checked separately. Each test waits for the server's own
 * events (a 408, a closed socket), never for time to pass.
 */
import { connect, type Socket } from 'node:net';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { BodyTooLargeError, HANDLE, type IncomingRequest } from '@edge-mcp/core/adapter';
import { describe, expect, test } from 'vitest';
import { LINGER_BYTES } from '../src/node/connection-close.ts';
import { NODE_SERVE_DEFAULTS, serve } from '../src/node/serve.ts';
import type { FetchHandler, PlainReply } from '../src/shared/types.ts';
import { bytes, deferred, start, within } from './helpers.ts';

/** A raw client: what it received, and when the server closed the connection. */
interface RawClient {
  socket: Socket;
  received(): string;
  /** Resolves once the connection is closed (by either side, or reset). */
  closed: Promise<void>;
}

function rawClient(port: number): RawClient {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {}); // a reset is a close here
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => Buffer.concat(chunks).toString('latin1'), closed };
}

/** Writes one byte of `text` every `ms` until the connection closes (a slow client, not a wait). */
function dribble(client: RawClient, text: string, ms = 50): () => number {
  let sent = 0;
  const timer = setInterval(() => {
    if (client.socket.destroyed || sent >= text.length) return;
    client.socket.write(text[sent] ?? '');
    sent++;
  }, ms);
  void client.closed.then(() => clearInterval(timer));
  return () => sent;
}

/**
 * Writes about `total` bytes of body (64 KiB at a time, framed as chunks when `chunked`) as fast
 * as the connection takes them, until it closes; resolves with the bytes written by then.
 */
function flood(client: RawClient, total: number, chunked: boolean): Promise<number> {
  const data = Buffer.alloc(64 * 1024, 'x');
  const chunk = chunked ? Buffer.concat([bytes('10000\r\n'), data, bytes('\r\n')]) : data;
  return new Promise((resolve) => {
    let sent = 0;
    const pump = (): void => {
      while (!client.socket.destroyed && sent < total) {
        sent += chunk.length;
        if (!client.socket.write(chunk)) {
          client.socket.once('drain', pump);
          return;
        }
      }
    };
    void client.closed.then(() => resolve(client.socket.bytesWritten));
    pump();
  });
}

/** Reads the body and echoes its size; the fetch path (a Web Request). */
const reader: FetchHandler = {
  async fetch(request) {
    return new Response(`read ${(await request.text()).length}`);
  },
};

describe('request timeouts', () => {
  test('a body dribbled slower than requestTimeout is cut: 408 and the connection closed', async () => {
    const server = await start(reader, { requestTimeout: 500, headersTimeout: 500 });
    const client = rawClient(server.port);
    client.socket.write('POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n');
    const sent = dribble(client, 'x'.repeat(1000));
    await within(client.closed, 'the server to cut the slow body', 10_000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent()).toBeLessThan(1000);
  });

  test('headers dribbled slower than headersTimeout are cut: 408 and the connection closed', async () => {
    const server = await start(reader, { requestTimeout: 5_000, headersTimeout: 500 });
    const client = rawClient(server.port);
    const head = `GET /slow HTTP/1.1\r\n${'X-Filler: y\r\n'.repeat(200)}\r\n`;
    const sent = dribble(client, head);
    await within(client.closed, 'the server to cut the slow headers', 10_000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent()).toBeLessThan(head.length);
  });

  test('answers that stream longer than requestTimeout are not cut (a POST answered with SSE, a GET stream)', async () => {
    const streams: Array<ReadableStreamDefaultController<Uint8Array>> = [];
    const server = await start(
      {
        async fetch(request) {
          if (request.method === 'POST') await request.text();
          else if (new URL(request.url).pathname === '/slow') return reader.fetch(request);
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              streams.push(controller);
              controller.enqueue(bytes('data: open\n\n'));
            },
          });
          return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
        },
      },
      { requestTimeout: 500, headersTimeout: 500 },
    );
    const decoder = new TextDecoder();
    const open = async (init?: RequestInit) => {
      const response = await within(fetch(`${server.url}/sse`, init), 'the stream headers');
      const stream = response.body?.getReader();
      if (stream === undefined) throw new Error('no body');
      expect(decoder.decode((await within(stream.read(), 'the first event')).value)).toBe(
        'data: open\n\n',
      );
      return stream;
    };
    const post = await open({ method: 'POST', body: '{"jsonrpc":"2.0"}' });
    const get = await open();

    // A slow client that connects after both streams opened is cut after requestTimeout: by then
    // both streams have been open longer than that.
    const slow = rawClient(server.port);
    slow.socket.write('POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n');
    dribble(slow, 'x'.repeat(1000));
    await within(slow.closed, 'the slow client to be cut', 10_000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);

    for (const controller of streams) {
      controller.enqueue(bytes('data: still here\n\n'));
      controller.close();
    }
    for (const stream of [post, get]) {
      expect(decoder.decode((await within(stream.read(), 'the next event')).value)).toBe(
        'data: still here\n\n',
      );
      expect((await within(stream.read(), 'the clean end')).done).toBe(true);
    }
  });
});

describe('a refused body closes the connection', () => {
  /** A fast-path handler that refuses bodies over 1000 bytes. */
  function refusing(refused: Array<unknown>): FetchHandler {
    return {
      fetch: () => {
        throw new Error('the fast entry is used');
      },
      [HANDLE]: async (request: IncomingRequest): Promise<PlainReply> => {
        try {
          await request.readText?.(1000);
          return { status: 200, headers: {}, body: 'read' };
        } catch (error) {
          refused.push(error);
          return { status: 413, headers: { 'content-type': 'application/json' }, body: '{}' };
        }
      },
    };
  }

  const cases = [
    ['by the declared length', 'Content-Length: 67108864'],
    ['while reading a chunked body', 'Transfer-Encoding: chunked'],
  ] as const;

  test.each(cases)(
    '413 %s: Connection: close, the connection ends, the rest is not read',
    async (_, framing) => {
      const refused: unknown[] = [];
      const server = await start(refusing(refused));
      const client = rawClient(server.port);
      client.socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${framing}\r\n\r\n`);
      const total = 64 * 1024 * 1024;
      const chunked = framing.startsWith('Transfer');
      const written = await within(
        flood(client, total, chunked),
        'the server to close the connection',
      );
      expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
      expect(client.received().toLowerCase()).toContain('connection: close');
      // Before, Node read all 64 MiB into nothing to keep the connection alive (and kept it).
      expect(written).toBeLessThan(total);
      expect(refused[0]).toBeInstanceOf(BodyTooLargeError);
    },
  );

  test('413 from a fetch handler (a Web Response): the same', async () => {
    const server = await start({
      fetch: () =>
        new Response('{}', { status: 413, headers: { 'content-type': 'application/json' } }),
    });
    const client = rawClient(server.port);
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 67108864\r\n\r\n',
    );
    const total = 64 * 1024 * 1024;
    const written = await within(flood(client, total, false), 'the server to close the connection');
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.received().toLowerCase()).toContain('connection: close');
    expect(written).toBeLessThan(total);
  });

  test('a client that reads late still gets the 413: past LINGER_BYTES the server stops reading, it does not reset', async () => {
    const server = await start(refusing([]));
    const accepted = new Promise<Socket>((resolve) => server.server.once('connection', resolve));
    const client = rawClient(server.port);
    // A busy client: it does not read until the server has taken its share of the upload.
    client.socket.pause();
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 67108864\r\n\r\n',
    );
    const written = flood(client, 64 * 1024 * 1024, false);
    const peer = await accepted;
    const past = deferred();
    const check = setInterval(() => {
      if (peer.bytesRead > LINGER_BYTES || peer.destroyed) past.resolve();
    }, 1);
    await within(past.promise, 'the server to read past LINGER_BYTES');
    clearInterval(check);
    // Before, the server cut the connection here (a reset that lost the unread answer). Now it
    // holds it open, unread, until LINGER_MS: 200 ms without a close is the negative checked.
    const cut = await Promise.race([
      new Promise((resolve) => peer.once('close', () => resolve(true))),
      new Promise((resolve) => setTimeout(resolve, 200, false)),
    ]);
    expect(cut).toBe(false);
    const readSoFar = peer.bytesRead;
    client.socket.resume();
    await within(written, 'the server to end the connection at LINGER_MS');
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    // Nothing more was read after the stop.
    expect(peer.bytesRead).toBe(readSoFar);
  });

  test('an accepted body keeps the connection alive', async () => {
    const server = await start(refusing([]));
    const client = rawClient(server.port);
    const request = 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello';
    const answered = deferred();
    client.socket.on('data', () => {
      if ((client.received().match(/HTTP\/1\.1 200 /g) ?? []).length === 2) answered.resolve();
    });
    client.socket.write(request + request);
    await within(answered.promise, 'two answers on one connection');
    expect(client.received().toLowerCase()).not.toContain('connection: close');
    client.socket.destroy();
  });
});

describe("the core handler's early refusals close the connection: the upload is not read", () => {
  /** The core handler with a token check and a small in-flight byte budget. */
  function coreHandler() {
    const server = new McpServer({ name: 'refusals', version: '1' });
    server.tool('echo', {}, () => 'echo');
    return createMcpHandler(server, {
      auth: {
        verify: (token) => (token === 'good' ? { principal: 'alice', scopes: [] } : undefined),
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['http://127.0.0.1:9'],
      },
      maxBodyBytes: 128 * 1024 * 1024,
      limits: { maxInFlightBytes: 1024 * 1024 },
    });
  }
  const headers = 'Content-Type: application/json\r\nAccept: application/json, text/event-stream';
  const cases = [
    ['401 for a bad token', 'POST /mcp', 'Authorization: Bearer bad', 401],
    [
      '403 for an Origin',
      'POST /mcp',
      'Authorization: Bearer good\r\nOrigin: http://evil.example',
      403,
    ],
    ['404 for another path', 'POST /elsewhere', 'Authorization: Bearer good', 404],
    ['405 for PUT', 'PUT /mcp', 'Authorization: Bearer good', 405],
    [
      '415 for a Content-Type',
      'POST /mcp',
      'Authorization: Bearer good\r\nContent-Type: text/plain',
      415,
    ],
    ['503 over the in-flight byte budget', 'POST /mcp', 'Authorization: Bearer good', 503],
  ] as const;

  test.each(cases)('%s', async (_, line, extra, status) => {
    const handler = coreHandler();
    const server = await start(handler);
    const client = rawClient(server.port);
    const total = 64 * 1024 * 1024;
    client.socket.write(
      `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n${headers}\r\nContent-Length: ${total}\r\n\r\n`,
    );
    const written = await within(flood(client, total, false), 'the server to close the connection');
    expect(client.received()).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(client.received().toLowerCase()).toContain('connection: close');
    // Before, Node read the whole refused upload into nothing and kept the connection.
    expect(written).toBeLessThan(total);
    expect(handler.stats().inFlightBytes).toBe(0);
    await handler.close();
  });
});

describe('connection limit', () => {
  test('past maxConnections a new connection is closed before any answer; reported once', async () => {
    const errors: unknown[] = [];
    const server = await start(
      { fetch: () => new Response('ok') },
      { maxConnections: 2, onError: (error) => errors.push(error) },
    );
    // Two keep-alive connections the server has accepted (each got an answer and stays open).
    const held: RawClient[] = [];
    for (let i = 0; i < 2; i++) {
      const client = rawClient(server.port);
      const answered = deferred();
      client.socket.on('data', () => answered.resolve());
      client.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await within(answered.promise, 'an answer on a held connection');
      held.push(client);
    }
    for (const extra of [rawClient(server.port), rawClient(server.port)]) {
      extra.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await within(extra.closed, 'the extra connection to be closed');
      expect(extra.received()).toBe('');
    }
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('maxConnections is 2');
    for (const client of held) client.socket.destroy();
  });
});

test('defaults: headersTimeout 30 s, requestTimeout 60 s, 10,000 connections', async () => {
  expect(NODE_SERVE_DEFAULTS).toEqual({
    headersTimeout: 30_000,
    requestTimeout: 60_000,
    maxConnections: 10_000,
  });
  const node = await serve(
    { fetch: () => new Response('ok') },
    { port: 0, hostname: '127.0.0.1', shutdownSignals: false },
  );
  try {
    expect(node.server.headersTimeout).toBe(30_000);
    expect(node.server.requestTimeout).toBe(60_000);
    expect(node.server.maxConnections).toBe(10_000);
  } finally {
    await node.close();
  }
});
