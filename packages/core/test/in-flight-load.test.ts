/**
 * What requests in flight may hold (issue 22): the requests a principal runs at once, and the
 * byte budget: request bodies are charged while their requests run, per
 * handler and per principal; a body that does not fit is refused (503 for the handler's budget,
 * 429 for the principal's, both with Retry-After) before it is read when its length is declared;
 * the bytes come back when the request ends, and a dropped resumable call keeps its bytes through
 * its grace.
 */
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { HANDLE } from '../src/adapter.ts';
import { toResponse } from '../src/http/responses.ts';
import {
  createMcpHandler,
  type McpHandlerOptions,
  McpServer,
  type RequestEvent,
} from '../src/index.ts';

/** A server whose `hold` tool runs until released, and `echo` that answers at once. */
function setup(options: McpHandlerOptions = {}) {
  const server = new McpServer({ name: 'bytes', version: '1' });
  const releases: Array<() => void> = [];
  let started: () => void = () => {};
  let running = new Promise<void>((resolve) => (started = resolve));
  server.tool('echo', { inputSchema: { pad: z.string().optional() } }, () => 'echo');
  server.tool(
    'hold',
    { inputSchema: { pad: z.string() } },
    (_args, ctx) =>
      new Promise<string>((resolve, reject) => {
        releases.push(() => resolve('held'));
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        ctx.progress(0, 1);
        started();
        running = new Promise<void>((next) => (started = next));
      }),
  );
  const handler = createMcpHandler(server, options);
  return {
    handler,
    releases,
    /** Resolves once the next `hold` call is running. */
    nextRunning: () => running,
  };
}

const pad = (bytes: number) => 'x'.repeat(bytes);
const asClient = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the handler-wide budget', () => {
  test('a body that does not fit is refused 503 with Retry-After; the bytes come back at the end', async () => {
    const { handler, releases, nextRunning } = setup({
      limits: { maxInFlightBytes: 3000, maxInFlightBytesPerPrincipal: 3000 },
    });
    const started = nextRunning();
    const first = handler.fetch(
      modernRequest('tools/call', { name: 'hold', arguments: { pad: pad(2000) } }),
    );
    await started;
    const held = handler.stats().inFlightBytes;
    expect(held).toBeGreaterThan(2000);
    const refused = await handler.fetch(
      modernRequest('tools/call', { name: 'echo', arguments: { pad: pad(1500) } }),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error.code).toBe(-32000);
    // A small one still fits beside it.
    const small = await handler.fetch(modernRequest('tools/call', { name: 'echo' }));
    expect(small.status).toBe(200);
    await small.text();
    expect(handler.stats().inFlightBytes).toBe(held);
    releases.shift()?.();
    await readAnswer(await first);
    await expect.poll(() => handler.stats().inFlightBytes).toBe(0);
    const after = await handler.fetch(
      modernRequest('tools/call', { name: 'echo', arguments: { pad: pad(1500) } }),
    );
    expect(after.status).toBe(200);
    await after.text();
    expect(handler.stats().inFlightBytes).toBe(0);
    expect(handler.stats().rejected).toBe(1);
  });

  test('a chunked body (no Content-Length) is charged as it arrives and refused when it grows past', async () => {
    const { handler } = setup({ limits: { maxInFlightBytes: 1000 } });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', pad: pad(5000) });
    const base = modernRequest('tools/list');
    const chunks = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 256) controller.enqueue(chunks.slice(i, i + 256));
        controller.close();
      },
    });
    const chunked = new Request(base.url, {
      method: 'POST',
      headers: base.headers,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.headers.get('content-length')).toBeNull();
    const refused = await handler.fetch(chunked);
    expect(refused.status).toBe(503);
    await refused.body?.cancel();
    expect(handler.stats().inFlightBytes).toBe(0);
  });
});

describe('per principal', () => {
  const auth: McpHandlerOptions['auth'] = {
    verify: (token) => ({ principal: token, scopes: [] }),
    resource: 'http://127.0.0.1:8787/mcp',
    authorizationServers: ['http://127.0.0.1:9'],
  };

  test("one client over its share gets 429; another client's calls still fit", async () => {
    const { handler, releases, nextRunning } = setup({
      auth,
      limits: { maxInFlightBytes: 100_000, maxInFlightBytesPerPrincipal: 3000 },
    });
    const started = nextRunning();
    const holding = handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'hold', arguments: { pad: pad(2000) } },
        { headers: asClient('mallory') },
      ),
    );
    await started;
    const over = await handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'echo', arguments: { pad: pad(1500) } },
        { headers: asClient('mallory') },
      ),
    );
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    await over.body?.cancel();
    const other = await handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'echo', arguments: { pad: pad(1500) } },
        { headers: asClient('alice') },
      ),
    );
    expect(other.status).toBe(200);
    await other.text();
    releases.shift()?.();
    await readAnswer(await holding);
    await expect.poll(() => handler.stats().inFlightBytes).toBe(0);
  });
});

describe('requests in flight per principal', () => {
  const auth: McpHandlerOptions['auth'] = {
    verify: (token) => ({ principal: token, scopes: [] }),
    resource: 'http://127.0.0.1:8787/mcp',
    authorizationServers: ['http://127.0.0.1:9'],
  };

  test("a client at its maximum gets 429; another client's calls run; its slots come back as its calls end", async () => {
    const events: RequestEvent[] = [];
    const { handler, releases, nextRunning } = setup({
      auth,
      limits: { maxInFlightPerPrincipal: 2 },
      onRequest: (event) => events.push(event),
    });
    const calls: Promise<Response>[] = [];
    for (let i = 0; i < 2; i++) {
      const started = nextRunning();
      calls.push(
        handler.fetch(
          modernRequest(
            'tools/call',
            { name: 'hold', arguments: { pad: 'x' } },
            { headers: asClient('mallory') },
          ),
        ),
      );
      await started;
    }
    const third = await handler.fetch(
      modernRequest('tools/call', { name: 'echo' }, { headers: asClient('mallory') }),
    );
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    await third.body?.cancel();
    expect(events.at(-1)).toMatchObject({ outcome: 'refused', reason: 'principal-in-flight' });
    const other = await handler.fetch(
      modernRequest('tools/call', { name: 'echo' }, { headers: asClient('alice') }),
    );
    expect(other.status).toBe(200);
    await other.text();
    releases.shift()?.();
    await readAnswer((await calls[0]) as Response);
    const again = await handler.fetch(
      modernRequest('tools/call', { name: 'echo' }, { headers: asClient('mallory') }),
    );
    expect(again.status).toBe(200);
    await again.text();
    releases.shift()?.();
    await readAnswer((await calls[1]) as Response);
    await handler.close();
  });
});

test("GET streams count among a client's requests in flight until they end: holding one per session cannot take every slot", async () => {
  const { handler } = setup({ limits: { maxInFlightPerPrincipal: 3 } });
  const from = (address: string, request: Request) =>
    handler[HANDLE](Object.assign(request, { remoteAddress: address })).then(toResponse);
  const streams: Response[] = [];
  for (let i = 0; i < 3; i++) {
    const session = await openSession({ fetch: (r) => from('192.0.2.9', r) });
    const stream = await from('192.0.2.9', legacyGetRequest(session));
    expect(stream.status).toBe(200);
    streams.push(stream);
  }
  const fourth = await openSession({ fetch: (r) => from('192.0.2.9', r) }).catch(
    (error: Error) => error.message,
  );
  expect(String(fourth)).toContain('429');
  // Another client opens its session and stream.
  const theirs = await openSession({ fetch: (r) => from('192.0.2.10', r) });
  const stream = await from('192.0.2.10', legacyGetRequest(theirs));
  expect(stream.status).toBe(200);
  await stream.body?.cancel();
  // A stream that ends gives its slot back.
  await streams[0]?.body?.cancel();
  await expect
    .poll(async () => {
      const answer = await from('192.0.2.9', modernRequest('tools/call', { name: 'echo' }));
      await answer.text();
      return answer.status;
    })
    .toBe(200);
  for (const open of streams.slice(1)) await open.body?.cancel();
  await handler.close();
});

test('a dropped resumable 2025-11-25 call keeps its bytes through its grace, and gives them back when it ends', async () => {
  const { handler, nextRunning } = setup({
    disconnectGraceMs: 60_000,
    limits: { maxInFlightBytes: 3000 },
  });
  const session = await openSession(handler);
  const controller = new AbortController();
  const started = nextRunning();
  const call = await handler.fetch(
    legacyRequest(
      'tools/call',
      { name: 'hold', arguments: { pad: pad(2000) }, _meta: { progressToken: 'p' } },
      session,
      { signal: controller.signal },
    ),
  );
  await started;
  const reader = new SseReader(call);
  await reader.next(); // the priming event: the stream can be resumed
  await reader.cancel(); // the client drops the stream
  // Still held: the handler runs on for the resumption.
  expect(handler.stats().inFlightBytes).toBeGreaterThan(2000);
  const refused = await handler.fetch(
    legacyRequest('tools/call', { name: 'echo', arguments: { pad: pad(1500) } }, session),
  );
  expect(refused.status).toBe(503);
  await refused.body?.cancel();
  // The session ends: its call is aborted, and its bytes come back.
  await handler.close();
  expect(handler.stats().inFlightBytes).toBe(0);
});
