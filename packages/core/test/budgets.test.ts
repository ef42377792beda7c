/**
 * Issue 12's attacks on the core, each as a regression test: what one client sends is bounded,
 * and every bound is answered with a clear, spec-shaped error (never a 5xx, never a crash).
 */
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  postRequest,
  readAnswer,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createMcpHandler, DEFAULTS, McpServer } from '../src/index.ts';
import { MemoryEventStore } from '../src/sessions.ts';
import { call } from './helpers.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'budgets', version: '1' });
  s.tool('echo', {}, (args) => String(args.text ?? ''));
  s.resource('readme', 'docs://readme', {}, () => 'hi');
  return s;
}

/** A tool that runs until `release()`, and tells when a call has started. */
function holding(s: McpServer): { started: () => Promise<void>; release: () => void } {
  const waiting: Array<() => void> = [];
  const starts: Array<() => void> = [];
  let count = 0;
  s.tool('hold', {}, () => {
    count++;
    for (const resolve of starts.splice(0)) resolve();
    return new Promise<string>((resolve) => waiting.push(() => resolve('released')));
  });
  return {
    started: () => new Promise((resolve) => (count > 0 ? resolve() : starts.push(resolve))),
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/** Where a deeply nested value goes: the body's text gets it instead (a client cannot stringify it). */
const DEEP = '__deep__';

/**
 * `request` with `DEEP` in its body replaced by JSON nested 200,000 arrays deep: JSON.parse reads
 * it, while String() or JSON.stringify of the parsed value overflows the stack.
 */
async function deepened(request: Request): Promise<Request> {
  const depth = 200_000;
  const text = (await request.text()).replace(
    `"${DEEP}"`,
    `${'['.repeat(depth)}"x"${']'.repeat(depth)}`,
  );
  return new Request(request.url, { method: 'POST', headers: request.headers, body: text });
}

describe('what a session keeps is bounded', () => {
  test('initialize with an oversized clientInfo or capabilities is 400 -32602, and opens nothing', async () => {
    const handler = createMcpHandler(server());
    const cases = [
      {
        clientInfo: { name: 'x'.repeat(DEFAULTS.limits.maxClientInfoBytes), version: '1' },
        capabilities: {},
      },
      {
        clientInfo: { name: 'c', version: '1' },
        capabilities: { experimental: { x: 'y'.repeat(DEFAULTS.limits.maxCapabilitiesBytes) } },
      },
      { clientInfo: { name: 'c', version: '1', deep: DEEP }, capabilities: {} },
    ];
    for (const extra of cases) {
      const answer = await readAnswer(
        await handler.fetch(
          await deepened(legacyRequest('initialize', { protocolVersion: '2025-11-25', ...extra })),
        ),
      );
      expect(answer.status).toBe(400);
      expect(answer.message.error.code).toBe(-32602);
      expect(answer.message.error.message).toMatch(/larger than \d+ characters of JSON/);
    }
    expect(handler.stats()).toMatchObject({ sessions: 0, rejected: 3 });
  });

  test('a progress token longer than the limit is -32602 (both eras)', async () => {
    const handler = createMcpHandler(server(), { limits: { maxProgressTokenLength: 8 } });
    const modern = await call(
      handler,
      'tools/call',
      { name: 'echo' },
      { meta: { progressToken: 'x'.repeat(9) } },
    );
    expect(modern.message.error).toMatchObject({ code: -32602 });
    const session = await openSession(handler);
    const legacy = await readAnswer(
      await handler.fetch(
        legacyRequest(
          'tools/call',
          { name: 'echo', _meta: { progressToken: { deep: true } } },
          session,
        ),
      ),
    );
    expect(legacy.message.error).toMatchObject({ code: -32602 });
    const ok = await call(
      handler,
      'tools/call',
      { name: 'echo', arguments: { text: 'ok' } },
      { meta: { progressToken: 7 } },
    );
    expect(ok.message.result.content[0].text).toBe('ok');
  });

  test('subscriptions: a URI over the length and a session over the count are refused', async () => {
    const handler = createMcpHandler(server(), {
      limits: { maxSubscriptions: 2, maxUriLength: 20 },
    });
    const session = await openSession(handler);
    const subscribe = async (uri: string) =>
      (
        await readAnswer(
          await handler.fetch(legacyRequest('resources/subscribe', { uri }, session)),
        )
      ).message;
    expect((await subscribe('docs://a')).result).toEqual({});
    expect((await subscribe('docs://a')).result).toEqual({});
    expect((await subscribe('docs://b')).result).toEqual({});
    expect((await subscribe('docs://c')).error.message).toMatch(/2 subscriptions at most/);
    expect((await subscribe(`docs://${'x'.repeat(20)}`)).error.message).toMatch(/longer than 20/);
    const listen = await call(handler, 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['a://1', 'a://2', 'a://3'] },
    });
    expect(listen.message.error.message).toMatch(/2 subscriptions at most/);
  });

  test('the event store keeps at most its bytes per session, whatever the client makes it send', async () => {
    const store = new MemoryEventStore({ maxEventBytesPerSession: 64 * 1024 });
    const s = server();
    s.tool('shout', {}, (_args, ctx) => {
      for (let i = 1; i <= 40; i++) ctx.log('info', 'y'.repeat(4096));
      return 'done';
    });
    const handler = createMcpHandler(s, { eventStore: store });
    const session = await openSession(handler);
    for (let round = 0; round < 3; round++) {
      const answer = await readAnswer(
        await handler.fetch(legacyRequest('tools/call', { name: 'shout' }, session)),
      );
      expect(answer.message.result.content[0].text).toBe('done');
    }
    // 120 messages of 4 KiB were sent; the store keeps 64 KiB of them.
    expect(store.usage(session).bytes).toBeLessThanOrEqual(64 * 1024);
    expect(store.usage(session).events).toBeGreaterThan(5);
  });

  test('the event store bounds all sessions together; the least recently written gives way', () => {
    const store = new MemoryEventStore({ maxEventBytes: 10_000, maxEventBytesPerSession: 10_000 });
    store.append('a', '1', 'a'.repeat(4000));
    store.append('b', '1', 'b'.repeat(4000));
    store.append('a', '1', 'a'.repeat(1000));
    store.append('c', '1', 'c'.repeat(4000));
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    // b was written least recently: it went first.
    expect(store.usage('b').events).toBe(0);
    expect(store.usage('c').events).toBe(1);
    expect(store.usage('a').events).toBe(2);
  });
});

describe('what a client may make the server do at once is bounded', () => {
  test('requests in flight per session: over the limit is 429 with Retry-After', async () => {
    const s = server();
    const hold = holding(s);
    const handler = createMcpHandler(s, { limits: { maxInFlightPerSession: 2 } });
    const session = await openSession(handler);
    const running = [1, 2].map(() =>
      handler.fetch(legacyRequest('tools/call', { name: 'hold' }, session)),
    );
    await hold.started();
    await expect.poll(() => handler.inFlight).toBe(2);
    const third = await handler.fetch(legacyRequest('tools/call', { name: 'echo' }, session));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await readAnswer(third)).message.error.code).toBe(-32000);
    // Another session is not affected.
    const other = await openSession(handler);
    expect((await handler.fetch(legacyRequest('tools/call', { name: 'echo' }, other))).status).toBe(
      200,
    );
    hold.release();
    await Promise.all(running);
    expect(handler.stats().rejected).toBe(1);
  });

  test('requests in flight in the handler: over the limit is 503 with Retry-After', async () => {
    const s = server();
    const hold = holding(s);
    const handler = createMcpHandler(s, { limits: { maxInFlight: 1 } });
    const running = handler.fetch(modernRequest('tools/call', { name: 'hold' }));
    await hold.started();
    const refused = await handler.fetch(modernRequest('tools/call', { name: 'echo' }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    hold.release();
    await running;
    expect((await handler.fetch(modernRequest('tools/call', { name: 'echo' }))).status).toBe(200);
  });

  test('a 2025-03-26 batch over the limit is 400 and starts no handler', async () => {
    const s = server();
    let calls = 0;
    s.tool('count', {}, () => String(++calls));
    const handler = createMcpHandler(s, { limits: { maxBatchSize: 3 } });
    const session = await openSession(handler, '2025-03-26');
    const batch = Array.from({ length: 4 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'count' },
    }));
    const answer = await readAnswer(
      await handler.fetch(postRequest(batch, session, { version: '2025-03-26' })),
    );
    expect(answer.status).toBe(400);
    expect(answer.message.error.message).toMatch(/3 messages at most/);
    expect(calls).toBe(0);
  });

  test('server→client requests pending in a session are bounded', async () => {
    const s = server();
    s.tool('ask', {}, async (_args, ctx) => {
      const first = ctx.elicit({
        message: 'one?',
        requestedSchema: { type: 'object', properties: {} },
      });
      first.catch(() => {});
      try {
        await ctx.elicit({ message: 'two?', requestedSchema: { type: 'object', properties: {} } });
        return 'asked twice';
      } catch (error) {
        return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
      }
    });
    const handler = createMcpHandler(s, { limits: { maxPendingPerSession: 1 } });
    const session = await openSession(handler, '2025-11-25', { elicitation: {} });
    const response = await handler.fetch(legacyRequest('tools/call', { name: 'ask' }, session));
    const answer = await readAnswer(response);
    expect(answer.message.result.content[0].text).toMatch(/1 requests to the client waiting/);
  });

  test('open streams per session are bounded; a GET replacing the live one is not refused', async () => {
    const handler = createMcpHandler(server(), { limits: { maxStreamsPerSession: 1 } });
    const session = await openSession(handler);
    const first = await handler.fetch(legacyGetRequest(session));
    expect(first.status).toBe(200);
    // The standalone stream again: it replaces the live connection.
    const second = await handler.fetch(legacyGetRequest(session));
    expect(second.status).toBe(200);
    // A resumption of another stream would be a second connection.
    const resume = await handler.fetch(legacyGetRequest(session, '7-1'));
    expect(resume.status).toBe(429);
    await second.body?.cancel();
    await expect.poll(() => handler.stats().openStreams).toBe(0);
  });
});

describe('malformed input is answered, never a 5xx', () => {
  test('a batch whose client already left gets an empty 499, not an empty JSON array', async () => {
    // A call that waits notices the departed client there (one that answers at once is answered:
    // the signal is read only once work waits).
    const s = server();
    holding(s);
    const handler = createMcpHandler(s);
    const session = await openSession(handler, '2025-03-26');
    const client = new AbortController();
    client.abort();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold' } };
    const answer = await handler.fetch(
      postRequest([call], session, { version: '2025-03-26', signal: client.signal }),
    );
    expect(answer.status).toBe(499);
    expect(await answer.text()).toBe('');
  });

  test('a deeply nested log level is 400 -32602 (2026-07-28) and -32602 (legacy)', async () => {
    const handler = createMcpHandler(server());
    const modern = await readAnswer(
      await handler.fetch(
        await deepened(
          modernRequest(
            'tools/call',
            { name: 'echo' },
            { meta: { 'io.modelcontextprotocol/logLevel': DEEP } },
          ),
        ),
      ),
    );
    expect(modern.status).toBe(400);
    expect(modern.message.error).toMatchObject({
      code: -32602,
      message: 'Unknown log level: an array',
    });
    const session = await openSession(handler);
    const legacy = await readAnswer(
      await handler.fetch(
        await deepened(legacyRequest('logging/setLevel', { level: DEEP }, session)),
      ),
    );
    expect(legacy.message.error).toMatchObject({ code: -32602 });
  });

  test("completion looks names up as the server's own, not through the prototype chain", async () => {
    const s = server();
    s.prompt('p', { complete: { lang: () => ['go'] } }, () => 'x');
    const handler = createMcpHandler(s);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const answer = await call(handler, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'p' },
        argument: { name, value: 'abc' },
      });
      expect(answer.message.result.completion, name).toEqual({
        values: [],
        total: 0,
        hasMore: false,
      });
    }
  });

  test("an engine error in a handler is -32603 'Internal error', without the engine's message", async () => {
    const s = server();
    s.prompt('boom', {}, () => {
      const recurse = (n: number): number => recurse(n + 1) + 1;
      return String(recurse(0));
    });
    const answer = await call(createMcpHandler(s), 'prompts/get', { name: 'boom' });
    expect(answer.message.error).toEqual({ code: -32603, message: 'Internal error' });
  });

  test('U+0085, U+2028 and U+2029 go out escaped in SSE data (the same JSON, one line for every client)', async () => {
    const s = server();
    s.tool('lines', {}, (_args, ctx) => {
      ctx.log('info', 'a\u2028b\u2029c\u0085d');
      return 'x\u2028y\u0085z';
    });
    const response = await createMcpHandler(s).fetch(
      modernRequest(
        'tools/call',
        { name: 'lines' },
        { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } },
      ),
    );
    const text = await response.text();
    expect(text).not.toMatch(/[\u0085\u2028\u2029]/);
    expect(text).toContain('a\\u2028b\\u2029c\\u0085d');
    const last = text.trim().split('\n').at(-1) as string;
    expect(JSON.parse(last.slice('data: '.length)).result.content[0].text).toBe('x\u2028y\u0085z');
  });
});
