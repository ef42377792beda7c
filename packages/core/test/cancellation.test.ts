import { getEventListeners } from 'node:events';
import { modernRequest, readAnswer, sseMessages } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  createMcpHandler,
  McpServer,
  RequestAbortedError,
  type RequestEvent,
} from '../src/index.ts';
import { aborted } from './helpers.ts';

/** A server whose `sleep` tool reports when it starts and whether it ever finished. */
function sleepy() {
  const started: Array<(signal: AbortSignal) => void> = [];
  const finished: number[] = [];
  const server = new McpServer({ name: 'sleepy', version: '1.0.0' });
  server.tool(
    'sleep',
    { inputSchema: z.object({ ms: z.number(), progress: z.boolean().optional() }) },
    async ({ ms, progress }, ctx) => {
      started.shift()?.(ctx.signal);
      if (progress) ctx.progress(0, ms, 'started');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          },
          { once: true },
        );
      });
      finished.push(ms);
      return `slept ${ms}`;
    },
  );
  server.tool('stubborn', {}, async () => {
    // Ignores its signal on purpose: close() must not wait for it forever.
    await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
    return 'late';
  });
  server.resource('r', 'test://r', {}, () => 'r');
  /** Resolves with the handler's signal once the next sleep call is running. */
  const nextStart = () => new Promise<AbortSignal>((resolve) => started.push(resolve));
  return { server, finished, nextStart };
}

describe('disconnect is cancellation', () => {
  test('aborting request.signal aborts the handler with reason disconnect; nothing is written after', async () => {
    const { server, finished, nextStart } = sleepy();
    const events: RequestEvent[] = [];
    const handler = createMcpHandler(server, { onRequest: (e) => events.push(e) });
    const client = new AbortController();
    const running = nextStart();
    const responding = handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'sleep', arguments: { ms: 5000 } },
        { signal: client.signal },
      ),
    );
    const signal = await running;
    const t0 = performance.now();
    client.abort();
    const reason = await aborted(signal, 1000);
    const latency = performance.now() - t0;
    expect(reason).toBeInstanceOf(RequestAbortedError);
    expect((reason as RequestAbortedError).type).toBe('disconnect');
    // The abort arrived long before the 5 s of work could have finished.
    expect(latency).toBeLessThan(1000);
    const response = await responding;
    expect(response.status).toBe(499);
    expect(await response.text()).toBe('');
    await expect.poll(() => handler.inFlight).toBe(0);
    expect(finished).toEqual([]);
    expect(events).toMatchObject([
      { method: 'tools/call', name: 'sleep', outcome: 'cancelled', reason: 'disconnect' },
    ]);
  });

  test('cancelling an SSE answer mid-stream aborts the handler and ends the stream', async () => {
    const { server, finished, nextStart } = sleepy();
    const handler = createMcpHandler(server);
    const running = nextStart();
    const response = await handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'sleep', arguments: { ms: 5000, progress: true } },
        { meta: { progressToken: 'p' } },
      ),
    );
    const signal = await running;
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(sseMessages(first)[0]).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 0 },
    });
    await reader.cancel();
    const reason = (await aborted(signal, 1000)) as RequestAbortedError;
    expect(reason.type).toBe('disconnect');
    await expect.poll(() => handler.inFlight).toBe(0);
    expect(finished).toEqual([]);
  });

  test('a finished request releases its abort listener on request.signal', async () => {
    const { server } = sleepy();
    const handler = createMcpHandler(server);
    const client = new AbortController();
    for (let i = 0; i < 5; i++) {
      const request = modernRequest(
        'tools/call',
        { name: 'sleep', arguments: { ms: 0 } },
        { signal: client.signal },
      );
      const answer = await readAnswer(await handler.fetch(request));
      expect(answer.message.result.content[0].text).toBe('slept 0');
      await expect.poll(() => handler.inFlight).toBe(0);
      expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    }
  });
});

describe('shutdown ends everything', () => {
  test('close() with 100 in-flight calls and 10 listen streams', async () => {
    const { server, finished, nextStart } = sleepy();
    const events: RequestEvent[] = [];
    const handler = createMcpHandler(server, { onRequest: (e) => events.push(e) });
    const signals: Promise<AbortSignal>[] = [];
    const calls: Promise<Response>[] = [];
    for (let i = 0; i < 100; i++) {
      signals.push(nextStart());
      calls.push(
        handler.fetch(modernRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } })),
      );
    }
    const streams = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        handler.fetch(
          modernRequest(
            'subscriptions/listen',
            { notifications: { toolsListChanged: true } },
            { id: `listen-${i}` },
          ),
        ),
      ),
    );
    const running = await Promise.all(signals);
    expect(handler.inFlight).toBe(110);

    await handler.close();

    expect(handler.inFlight).toBe(0);
    for (const signal of running)
      expect((signal.reason as RequestAbortedError).type).toBe('shutdown');
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(503);
      expect((await response.json()).error.code).toBe(-32603);
    }
    for (const [i, stream] of streams.entries()) {
      // The whole stream can be read to its end: it was closed, and its last message is the completing result.
      const messages = sseMessages(await stream.text());
      expect(messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      expect(messages.at(-1)).toEqual({
        jsonrpc: '2.0',
        id: `listen-${i}`,
        result: {
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/subscriptionId': `listen-${i}` },
        },
      });
    }
    expect(finished).toEqual([]);
    expect(events.filter((e) => e.outcome === 'cancelled' && e.reason === 'shutdown')).toHaveLength(
      110,
    );
    const after = await handler.fetch(modernRequest('tools/list'));
    expect(after.status).toBe(503);
  });

  test('aborting the signal option closes the handler', async () => {
    const { server, nextStart } = sleepy();
    const shutdown = new AbortController();
    const handler = createMcpHandler(server, { signal: shutdown.signal });
    const running = nextStart();
    const call = handler.fetch(
      modernRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }),
    );
    const signal = await running;
    shutdown.abort();
    expect(((await aborted(signal, 1000)) as RequestAbortedError).type).toBe('shutdown');
    expect((await call).status).toBe(503);
    expect(handler.signal.aborted).toBe(true);
  });

  test('close() does not wait forever for a handler that ignores its signal', async () => {
    const { server } = sleepy();
    const handler = createMcpHandler(server, { shutdownTimeoutMs: 50 });
    const call = handler.fetch(modernRequest('tools/call', { name: 'stubborn' }));
    await expect.poll(() => handler.inFlight).toBe(1);
    await handler.close();
    expect((await call).status).toBe(503);
  });
});

test('close() releases what the handler attached outside itself (server listeners, the signal option)', async () => {
  const { server } = sleepy();
  const shutdown = new AbortController();
  const handler = createMcpHandler(server, { signal: shutdown.signal });
  expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
  await handler.close();
  expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
});
