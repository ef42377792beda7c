/**
 * A refusal made before the body was read keeps the connection when the body is small: a rate
 * limit answers a principal out of tokens inside the request's own event, before Node's parser
 * reached the body, and closing there made every refused request of a flood a new connection
 * (the reconnects cost the server more than the refusals). A large declared body still closes
 * (node-serve-limits.test.ts).
 */
import { connect } from 'node:net';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { modernHeaders, modernMessage } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { DISCARD_BYTES } from '../src/node/connection-close.ts';
import { deferred, start, within } from './helpers.ts';

function rateLimited() {
  const server = new McpServer({ name: 'limited', version: '1' });
  server.tool('echo', {}, () => 'echo');
  return createMcpHandler(server, { rateLimit: { perPrincipal: { perSecond: 0.001, burst: 1 } } });
}

/** A 2026-07-28 `tools/call` as raw HTTP/1.1, its body padded to `bodyBytes` when given. */
function rawCall(bodyBytes?: number): string {
  const message = modernMessage('tools/call', { name: 'echo' });
  let body = JSON.stringify(message);
  if (bodyBytes !== undefined) body = `${body}${' '.repeat(bodyBytes - body.length)}`;
  const headers = Object.entries(modernHeaders('tools/call', { name: 'echo' }))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Content-Length: ${body.length}\r\n\r\n${body}`;
}

/** One raw connection: write to it, wait for the n-th answer, see whether it is still open. */
function connection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let waiting: { count: number; done: () => void } | undefined;
  const answers = () => (received.match(/HTTP\/1\.1 \d{3} /g) ?? []).length;
  const check = () => {
    if (waiting && (answers() >= waiting.count || socket.destroyed)) waiting.done();
  };
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    check();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  void closed.then(check);
  return {
    write: (text: string) => socket.write(text),
    /** Resolves once `count` answers arrived in all (or the connection closed). */
    answered: (count: number) => {
      const done = deferred();
      waiting = { count, done: done.resolve };
      check();
      return within(done.promise, `answer ${count}`);
    },
    received: () => received,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** `rawCall(bodyBytes)` cut after its headers and 10 bytes of body: the rest not yet sent. */
function split(request: string): [string, string] {
  const at = request.indexOf('\r\n\r\n') + 4 + 10;
  return [request.slice(0, at), request.slice(at)];
}

test('429s of a principal out of tokens keep the connection alive', async () => {
  const handler = rateLimited();
  const server = await start(handler);
  const conn = connection(server.port);
  conn.write(rawCall());
  await conn.answered(1);
  // Answered before its body arrived (refused at once), the body declared small: kept.
  const [head, rest] = split(rawCall(DISCARD_BYTES));
  conn.write(head);
  await conn.answered(2);
  conn.write(rest);
  conn.write(rawCall());
  await conn.answered(3);
  expect(conn.received().match(/HTTP\/1\.1 \d{3} /g)).toEqual([
    'HTTP/1.1 200 ',
    'HTTP/1.1 429 ',
    'HTTP/1.1 429 ',
  ]);
  expect(conn.received().toLowerCase()).not.toContain('connection: close');
  conn.destroy();
  await handler.close();
});

test('a refused body declared over DISCARD_BYTES still closes the connection', async () => {
  const handler = rateLimited();
  const server = await start(handler);
  const conn = connection(server.port);
  conn.write(rawCall());
  await conn.answered(1);
  conn.write(split(rawCall(DISCARD_BYTES + 1))[0]);
  await conn.answered(2);
  expect(conn.received()).toMatch(/HTTP\/1\.1 429 [\s\S]*connection: close/i);
  await within(conn.closed, 'the server to close the connection');
  await handler.close();
});
