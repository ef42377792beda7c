/**
 * Token-bucket rate limits (issue 22): per principal, per tool and in total; a request over a
 * bucket is answered 429 with Retry-After and `data.retryAfterMs` and never runs; other
 * principals are not touched; the memory store stays bounded. Time is the store's `now`, never
 * a sleep.
 */
import { legacyRequest, modernRequest, openSession, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import {
  createMcpHandler,
  type McpHandlerOptions,
  McpServer,
  type RequestEvent,
} from '../src/index.ts';
import { MemoryRateLimitStore } from '../src/sessions.ts';

function setup(rateLimit: McpHandlerOptions['rateLimit']) {
  const server = new McpServer({ name: 'limits', version: '1' });
  const ran: string[] = [];
  for (const name of ['cheap', 'costly'])
    server.tool(name, {}, () => {
      ran.push(name);
      return name;
    });
  const events: RequestEvent[] = [];
  const handler = createMcpHandler(server, {
    rateLimit,
    onRequest: (event) => events.push(event),
    auth: {
      verify: (token) => ({ principal: token, scopes: [] }),
      resource: 'http://127.0.0.1:8787/mcp',
      authorizationServers: ['http://127.0.0.1:9'],
    },
  });
  const callAs = async (who: string, name: string) =>
    readAnswer(
      await handler.fetch(
        modernRequest('tools/call', { name }, { headers: { authorization: `Bearer ${who}` } }),
      ),
    );
  return { handler, ran, events, callAs };
}

describe('rate limits', () => {
  test('per principal: a burst, then 429 with Retry-After; another principal is not touched', async () => {
    const { ran, events, callAs } = setup({ perPrincipal: { perSecond: 0.001, burst: 3 } });
    for (let i = 0; i < 3; i++) expect((await callAs('mallory', 'cheap')).status).toBe(200);
    const over = await callAs('mallory', 'cheap');
    expect(over.status).toBe(429);
    expect(over.message.error.code).toBe(-32000);
    expect(over.message.error.data.retryAfterMs).toBeGreaterThan(900_000);
    expect(events.at(-1)).toMatchObject({
      outcome: 'refused',
      reason: 'rate-limited',
      status: 429,
    });
    expect(ran).toHaveLength(3);
    expect((await callAs('alice', 'cheap')).status).toBe(200);
  });

  test('a principal out of tokens is refused before its body is read', async () => {
    const { ran, events, callAs, handler } = setup({
      perPrincipal: { perSecond: 0.001, burst: 1 },
    });
    expect((await callAs('mallory', 'cheap')).status).toBe(200);
    const built = modernRequest(
      'tools/call',
      { name: 'cheap' },
      { headers: { authorization: 'Bearer mallory' } },
    );
    const bytes = new Uint8Array(await built.arrayBuffer());
    let pulled = 0;
    // highWaterMark 0: the stream is pulled only when someone reads the body.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled++;
          controller.enqueue(bytes);
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const init = { method: 'POST', headers: built.headers, body, duplex: 'half' };
    const over = await readAnswer(await handler.fetch(new Request(built.url, init as RequestInit)));
    expect(over.status).toBe(429);
    expect(over.message.error).toMatchObject({
      code: -32000,
      data: { retryAfterMs: expect.any(Number) },
    });
    expect(pulled).toBe(0);
    expect(events.at(-1)).toMatchObject({ outcome: 'refused', reason: 'rate-limited' });
    expect(ran).toHaveLength(1);
    // Another principal's body is read and its call runs.
    expect((await callAs('alice', 'cheap')).status).toBe(200);
  });

  test('the Retry-After header is the wait in whole seconds, and the bucket refills at its rate', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore();
    const clocked = {
      take: (buckets: Parameters<typeof store.take>[0]) => store.take(buckets, now),
    };
    const { handler } = setup({ perPrincipal: { perSecond: 2, burst: 1 }, store: clocked });
    const call = () =>
      handler.fetch(
        modernRequest('tools/call', { name: 'cheap' }, { headers: { authorization: 'Bearer a' } }),
      );
    expect((await call()).status).toBe(200);
    const over = await call();
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    expect((await over.json()).error.data.retryAfterMs).toBe(500);
    now += 499;
    expect((await call()).status).toBe(429);
    now += 1;
    expect((await call()).status).toBe(200);
  });

  test('per tool: a costly tool has its own bucket; the others go on', async () => {
    const { callAs } = setup({ perTool: { costly: { perSecond: 0.001, burst: 1 } } });
    expect((await callAs('bob', 'costly')).status).toBe(200);
    expect((await callAs('bob', 'costly')).status).toBe(429);
    expect((await callAs('bob', 'cheap')).status).toBe(200);
    // Per principal and tool: another principal's costly call has a bucket of its own.
    expect((await callAs('carol', 'costly')).status).toBe(200);
  });

  test('in total, across principals; and a legacy session request is limited the same way', async () => {
    const { handler, callAs } = setup({ total: { perSecond: 0.001, burst: 4 } });
    const headers = { authorization: 'Bearer dave' };
    const session = await openSession({
      fetch: (request) => {
        const withAuth = new Headers(request.headers);
        withAuth.set('authorization', headers.authorization);
        return handler.fetch(new Request(request, { headers: withAuth }));
      },
    });
    // The initialize took one token (a request like any other); three are left.
    expect((await callAs('a', 'cheap')).status).toBe(200);
    expect((await callAs('b', 'cheap')).status).toBe(200);
    const legacy = await readAnswer(
      await handler.fetch(legacyRequest('tools/call', { name: 'cheap' }, session, { headers })),
    );
    expect(legacy.status).toBe(200);
    const refused = await readAnswer(
      await handler.fetch(legacyRequest('tools/call', { name: 'cheap' }, session, { headers })),
    );
    expect(refused.status).toBe(429);
    expect(refused.message.error.data.retryAfterMs).toBeGreaterThan(0);
    expect((await callAs('c', 'cheap')).status).toBe(429);
    await handler.close();
  });

  test('a bad limit is refused when the handler is made', () => {
    expect(() => setup({ perPrincipal: { perSecond: 0, burst: 1 } })).toThrow(TypeError);
    expect(() => setup({ perTool: { x: { perSecond: 1, burst: 0 } } })).toThrow(
      'rateLimit.perTool["x"]',
    );
  });
});

test('the memory store stays bounded: a client cycling through addresses cannot grow it', () => {
  const store = new MemoryRateLimitStore({ maxBuckets: 100 });
  const limit = { perSecond: 1, burst: 5 };
  for (let i = 0; i < 10_000; i++) store.take([{ key: `p${i}`, limit }], 1000);
  expect(store.size).toBeLessThanOrEqual(100);
  // A drained bucket that is kept still refuses.
  for (let i = 0; i < 5; i++) store.take([{ key: 'hot', limit }], 2000);
  expect(store.take([{ key: 'hot', limit }], 2000)).toBe(1000);
});
