import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { aborted } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { deferred, start, within } from './helpers.ts';

describe('request.signal', () => {
  test('aborts with an AbortError when the client disconnects mid-handler', async () => {
    const started = deferred();
    const sawAbort = deferred<unknown>();
    const { url } = await start({
      async fetch(request) {
        started.resolve();
        sawAbort.resolve(await aborted(request.signal));
        return new Response('too late');
      },
    });
    const client = new AbortController();
    const pending = fetch(url, { signal: client.signal });
    await within(started.promise, 'the handler to start');
    client.abort();
    await expect(pending).rejects.toThrow();
    const reason = await within(sawAbort.promise, 'the handler to see the abort');
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('AbortError');
    expect((reason as DOMException).message).toMatch(/client disconnected/);
  });

  test('also aborts when the socket is destroyed while the body is still arriving', async () => {
    const started = deferred();
    const bodyError = deferred<unknown>();
    const abortSeen = deferred<unknown>();
    const { port } = await start({
      async fetch(request) {
        aborted(request.signal).then(abortSeen.resolve, abortSeen.reject);
        started.resolve();
        await request
          .text()
          .then(() => bodyError.reject(new Error('body should not complete')), bodyError.resolve);
        return new Response('never sent');
      },
    });
    const socket = connect(port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789');
    await within(started.promise, 'the handler to start');
    socket.destroy();
    expect(await within(bodyError.promise, 'the body read to fail')).toBeInstanceOf(Error);
    expect(await within(abortSeen.promise, 'the signal to abort')).toBeInstanceOf(DOMException);
  });

  test('a completed response does not abort the signal, even after the socket closes', async () => {
    let seen: AbortSignal | undefined;
    const { server, port } = await start({
      fetch(request) {
        seen = request.signal;
        return new Response('done');
      },
    });
    const socketClosed = new Promise<void>((resolve) => {
      server.once('connection', (socket: Socket) => socket.once('close', () => resolve()));
    });
    const text = await new Promise<string>((resolve, reject) => {
      // agent: false → "Connection: close", so the server closes the socket after answering.
      const req = httpRequest({ port, host: '127.0.0.1', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe('done');
    await within(socketClosed, 'the server socket to close');
    expect(seen).toBeDefined();
    expect(seen?.aborted).toBe(false);
  });
});
