import { getEventListeners, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import { serve } from '../src/node/index.ts';
import type { FetchHandler } from '../src/shared/types.ts';
import { bytes, deferred, sseHeaders, start, within } from './helpers.ts';

/** An SSE handler whose close() ends every open stream, as the core handler does. */
function closableSse() {
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const close = vi.fn(async (_reason?: unknown) => {
    for (const controller of open) controller.close();
    open.clear();
  });
  const handler: FetchHandler = {
    fetch() {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          open.add(controller);
          controller.enqueue(bytes('data: hello\n\n'));
        },
      });
      // Core streams pass through a transform (SSE encoding); its close takes a few more ticks.
      const encoded = body.pipeThrough(new TransformStream()).pipeThrough(new TransformStream());
      return Promise.resolve(new Response(encoded, { headers: sseHeaders() }));
    },
    close,
  };
  return { handler, close };
}

async function openStream(url: string) {
  const response = await within(fetch(url), 'the stream headers');
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  const first = await within(reader.read(), 'the first event');
  expect(new TextDecoder().decode(first.value)).toBe('data: hello\n\n');
  return reader;
}

describe('graceful shutdown', () => {
  test('close() calls handler.close(), ends open streams and resolves', async () => {
    const { handler, close } = closableSse();
    const node = await start(handler);
    const reader = await openStream(node.url);

    await within(node.close(), 'close()');
    expect(close).toHaveBeenCalledTimes(1);
    expect(close).toHaveBeenCalledWith();
    // The stream the handler ended reached the client as a clean end, not a cut.
    expect(await within(reader.read(), 'the end of the stream')).toEqual({
      done: true,
      value: undefined,
    });
    expect(node.server.listening).toBe(false);
    await expect(fetch(node.url)).rejects.toThrow();
    // Idempotent: later calls share the finished shutdown.
    await node.close();
    expect(close).toHaveBeenCalledTimes(1);
  });

  test('aborting options.signal shuts down the same way and detaches its listener', async () => {
    const { handler, close } = closableSse();
    const shutdown = new AbortController();
    const node = await start(handler, { signal: shutdown.signal });
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    const reader = await openStream(node.url);

    const serverClosed = once(node.server, 'close');
    shutdown.abort();
    await within(serverClosed, 'the server to close');
    expect(close).toHaveBeenCalledWith();
    expect((await within(reader.read(), 'the end of the stream')).done).toBe(true);
    await node.close();
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  test('streams the handler does not own are cut and cancelled; pending handlers abort', async () => {
    const cancelled = deferred<unknown>();
    const started = deferred();
    const aborted = deferred<unknown>();
    const node = await start({
      fetch(request) {
        if (new URL(request.url).pathname === '/pending') {
          started.resolve();
          return new Promise<Response>((resolve) => {
            request.signal.addEventListener('abort', () => {
              aborted.resolve(request.signal.reason);
              resolve(new Response('aborted'));
            });
          });
        }
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes('data: forever\n\n'));
          },
          cancel: cancelled.resolve,
        });
        return new Response(body, { headers: sseHeaders() });
      },
    });
    const reader = (await fetch(`${node.url}/stream`)).body?.getReader();
    if (reader === undefined) throw new Error('no body');
    await reader.read();
    const pending = fetch(`${node.url}/pending`).catch((error: unknown) => error);
    await within(started.promise, 'the pending handler to start');

    await within(node.close(), 'close()');
    await expect(within(reader.read(), 'the cut')).rejects.toThrow();
    expect((await within(cancelled.promise, 'cancel')) as DOMException).toHaveProperty(
      'name',
      'AbortError',
    );
    expect(await within(aborted.promise, 'the pending abort')).toBeInstanceOf(DOMException);
    expect(await pending).toBeInstanceOf(Error);
  });

  test('a failing handler.close() is reported and the shutdown still completes', async () => {
    const errors: unknown[] = [];
    const node = await start(
      {
        fetch: () => new Response('ok'),
        close: () => Promise.reject(new Error('close failed')),
      },
      { onError: (error) => errors.push(error) },
    );
    await within(node.close(), 'close()');
    expect(errors).toEqual([new Error('close failed')]);
  });

  test('shutdown signal listeners are installed by default and removed after close()', async () => {
    const before = {
      SIGINT: process.listenerCount('SIGINT'),
      SIGTERM: process.listenerCount('SIGTERM'),
    };
    const node = await serve(
      { fetch: () => new Response('ok') },
      { port: 0, hostname: '127.0.0.1' },
    );
    try {
      expect(process.listenerCount('SIGINT')).toBe(before.SIGINT + 1);
      expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM + 1);
    } finally {
      await node.close();
    }
    expect(process.listenerCount('SIGINT')).toBe(before.SIGINT);
    expect(process.listenerCount('SIGTERM')).toBe(before.SIGTERM);
  });

  test('serve() rejects on an aborted signal or a taken port, leaving nothing behind', async () => {
    const before = process.listenerCount('SIGTERM');
    const handler: FetchHandler = { fetch: () => new Response('ok') };
    await expect(serve(handler, { port: 0, signal: AbortSignal.abort() })).rejects.toThrow();

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = blocker.address() as AddressInfo;
      await expect(serve(handler, { port, hostname: '127.0.0.1' })).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
    } finally {
      blocker.close();
    }
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
