import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { bytes, deferred, sseHeaders, start, within } from './helpers.ts';

describe('streamed responses', () => {
  test('event stream: headers before the first event; client cancel reaches the stream', async () => {
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    const cancelled = deferred<unknown>();
    const aborted = deferred();
    const { url } = await start({
      fetch(request) {
        request.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            stream = controller;
          },
          cancel(reason) {
            cancelled.resolve(reason);
          },
        });
        return new Response(body, { headers: sseHeaders() });
      },
    });
    const client = new AbortController();
    // Nothing has been enqueued yet: this only resolves if the headers were flushed on their own.
    const response = await within(fetch(url, { signal: client.signal }), 'the headers');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body?.getReader();
    if (reader === undefined || stream === undefined) throw new Error('no stream');
    stream.enqueue(bytes('data: 1\n\n'));
    const first = await within(reader.read(), 'the first event');
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');

    client.abort();
    const reason = await within(cancelled.promise, 'the stream cancel callback');
    expect((reason as DOMException).name).toBe('AbortError');
    await within(aborted.promise, 'request.signal to abort');
  });

  test('a large body is delivered completely, and the producer never runs far ahead', async () => {
    const chunkSize = 64 * 1024;
    const chunks = 512; // 32 MiB
    let pulled = 0;
    let received = 0;
    let maxLead = 0;
    const { url, server } = await start({
      fetch() {
        const body = new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              if (pulled === chunks) return controller.close();
              maxLead = Math.max(maxLead, pulled * chunkSize - received);
              controller.enqueue(new Uint8Array(chunkSize).fill(pulled % 251));
              pulled++;
            },
          },
          { highWaterMark: 0 },
        );
        return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
      },
    });
    let drains = 0;
    server.on('request', (_req, res: ServerResponse) => {
      res.on('drain', () => {
        drains++;
      });
    });
    const reader = (await fetch(url)).body?.getReader();
    if (reader === undefined) throw new Error('no body');
    let mismatches = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.byteLength; i++) {
        if (value[i] !== Math.floor((received + i) / chunkSize) % 251) mismatches++;
      }
      received += value.byteLength;
    }
    expect(received).toBe(chunkSize * chunks);
    expect(mismatches).toBe(0);
    expect(drains).toBeGreaterThan(0);
    // Socket buffers hold a few MiB on loopback; without waiting for 'drain' the whole body
    // would be pulled before the client has read anything.
    expect(maxLead).toBeLessThan((chunkSize * chunks) / 2);
  });

  test('a stream that fails mid-way cuts the connection; the server keeps serving', async () => {
    const errors: unknown[] = [];
    let fail: ((error: Error) => void) | undefined;
    const { url } = await start(
      {
        fetch(request) {
          if (new URL(request.url).pathname === '/ok') return new Response('fine');
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(bytes('partial'));
              fail = (error) => controller.error(error);
            },
          });
          return new Response(body);
        },
      },
      { onError: (error) => errors.push(error) },
    );
    const response = await fetch(`${url}/broken`);
    const reader = response.body?.getReader();
    if (reader === undefined || fail === undefined) throw new Error('no stream');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('partial');
    fail(new Error('producer broke'));
    await expect(within(reader.read(), 'the cut')).rejects.toThrow();
    expect(errors).toEqual([new Error('producer broke')]);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('fine');
  });
});
