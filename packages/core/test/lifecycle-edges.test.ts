/**
 * Edges of the request and session lifecycle: work that starts after its exchange is already
 * over, a shutdown signal that aborted before the handler existed, questions a handler stopped
 * waiting for, a failing event store, batches under an adapter's single-listener `watch()`.
 */
import {
  legacyDeleteRequest,
  legacyRequest,
  MCP_URL,
  modernRequest,
  openSession,
  readAnswer,
  SseReader,
  within,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { HANDLE, type IncomingRequest } from '../src/adapter.ts';
import { createMcpHandler, McpServer, type RequestAbortedError } from '../src/index.ts';
import { MemoryEventStore, SessionManager } from '../src/sessions.ts';

/**
 * A request whose body comes in two parts: the second only after `between()`, which runs once the
 * handler has read the first part (it has passed the shutdown check and is reading its body).
 */
async function lateBody(request: Request, between: () => Promise<void>): Promise<Request> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  let second = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, 10));
    },
    async pull(controller) {
      if (second) return;
      second = true;
      await between();
      controller.enqueue(bytes.subarray(10));
      controller.close();
    },
  });
  return new Request(request.url, {
    method: 'POST',
    headers: request.headers,
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('an exchange that is over before its work starts', () => {
  test('a listen whose body arrives after close() is answered 503 and leaves nothing running', async () => {
    const server = new McpServer({ name: 'edges', version: '1' });
    server.tool('t', {}, () => 'ok');
    const handler = createMcpHandler(server);
    const request = await lateBody(
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      () => handler.close(),
    );
    const response = await handler.fetch(request);
    expect(response.status).toBe(503);
    // The listen handler must not wait for an abort that came before it started.
    await expect.poll(() => handler.inFlight).toBe(0);
  });

  test('a signal option that is already aborted closes the handler at once', async () => {
    const handler = createMcpHandler(new McpServer({ name: 'edges', version: '1' }), {
      signal: AbortSignal.abort(),
    });
    expect(handler.closed).toBe(true);
    expect((await handler.fetch(modernRequest('ping'))).status).toBe(503);
  });
});

describe('results a handler returns are its own', () => {
  test('a shared resource or prompt result is not changed by the modern wire fields', async () => {
    const contents = Object.freeze({
      contents: Object.freeze([{ uri: 'test://r', text: 'r' }]),
    });
    const messages = Object.freeze({
      messages: Object.freeze([{ role: 'user', content: { type: 'text', text: 'hi' } }]),
    });
    const server = new McpServer({ name: 'edges', version: '1' });
    server.resource('r', 'test://r', {}, () => contents as never);
    server.prompt('p', {}, () => messages as never);
    const handler = createMcpHandler(server);
    // Frozen: writing resultType or cache hints onto them would throw and answer an error.
    const resource = await readAnswer(
      await handler.fetch(modernRequest('resources/read', { uri: 'test://r' })),
    );
    expect(resource.message.result).toMatchObject({ resultType: 'complete', contents: [{}] });
    const prompt = await readAnswer(
      await handler.fetch(modernRequest('prompts/get', { name: 'p' })),
    );
    expect(prompt.message.result).toMatchObject({ resultType: 'complete', messages: [{}] });
    expect(Object.keys(contents)).toEqual(['contents']);
  });
});

describe('legacy routing', () => {
  test('with legacy: false, a legacy call carrying _meta (a progress token) gets -32022', async () => {
    const handler = createMcpHandler(new McpServer({ name: 'edges', version: '1' }), {
      legacy: false,
    });
    const answer = await readAnswer(
      await handler.fetch(
        legacyRequest('ping', { _meta: { progressToken: 1 } }, undefined, {
          version: '2025-11-25',
        }),
      ),
    );
    expect([answer.status, answer.message.error.code]).toEqual([400, -32022]);
  });

  test('without sessions, an unknown MCP-Protocol-Version is still a 400', async () => {
    const handler = createMcpHandler(new McpServer({ name: 'edges', version: '1' }), {
      sessions: false,
    });
    const bad = await handler.fetch(
      legacyRequest('ping', undefined, undefined, { version: '1999-01-01' }),
    );
    expect(bad.status).toBe(400);
    const good = await handler.fetch(
      legacyRequest('ping', undefined, undefined, { version: '2025-06-18' }),
    );
    expect(good.status).toBe(200);
  });
});

describe('server→client requests', () => {
  test('a question the handler stopped waiting for is forgotten when the handler ends', async () => {
    const manager = new SessionManager();
    const server = new McpServer({ name: 'edges', version: '1' });
    server.tool('impatient', {}, (_args, ctx) => {
      // Asks, then answers without waiting for the client.
      ctx.elicit({ message: 'name?', requestedSchema: { type: 'object' } }).catch(() => {});
      return 'done';
    });
    const handler = createMcpHandler(server, { sessions: manager });
    const session = await openSession(handler, '2025-11-25', { elicitation: {} });
    const response = await handler.fetch(
      legacyRequest('tools/call', { name: 'impatient' }, session, { version: '2025-11-25' }),
    );
    const reader = new SseReader(response);
    const asked = await reader.message();
    expect(asked?.method).toBe('elicitation/create');
    expect((await reader.message())?.result?.content?.[0]?.text).toBe('done');
    await expect.poll(() => handler.inFlight).toBe(0);
    expect(manager.peek(session)?.pending.size).toBe(0);
  });
});

describe('a failing event store', () => {
  test('a message it cannot keep still goes out and the stream still ends', async () => {
    const store = new MemoryEventStore();
    let failures = 0;
    const failing = {
      append: (sessionId: string, streamId: string, message: string) =>
        message.includes('progress')
          ? Promise.reject(new Error(`store down ${++failures}`))
          : Promise.resolve(store.append(sessionId, streamId, message)),
      replay: store.replay.bind(store),
      dropSession: async () => {
        throw new Error('store down');
      },
    };
    const server = new McpServer({ name: 'edges', version: '1' });
    server.tool('report', {}, async (_args, ctx) => {
      ctx.progress(1, 2);
      ctx.progress(2, 2);
      return 'reported';
    });
    const handler = createMcpHandler(server, { eventStore: failing });
    const session = await openSession(handler, '2025-11-25');
    const response = await handler.fetch(
      legacyRequest('tools/call', { name: 'report', _meta: { progressToken: 'p' } }, session, {
        version: '2025-11-25',
      }),
    );
    const text = await within(response.text(), 'the stream to end');
    expect(failures).toBe(2);
    expect(text.match(/notifications\/progress/g)).toHaveLength(2);
    expect(text).toContain('reported');
    // dropSession failing (asynchronously) on DELETE is no unhandled rejection.
    const deleted = await handler.fetch(legacyDeleteRequest(session, { version: '2025-11-25' }));
    expect(deleted.status).toBe(200);
  });
});

describe('batches under an adapter watch() that holds one listener', () => {
  test('a disconnect aborts every element of the batch', async () => {
    const reasons: string[] = [];
    const server = new McpServer({ name: 'edges', version: '1' });
    server.tool('wait', {}, (_args, ctx) => {
      return new Promise((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          reasons.push((ctx.signal.reason as RequestAbortedError).type);
          reject(ctx.signal.reason);
        });
      });
    });
    const handler = createMcpHandler(server);
    const session = await openSession(handler, '2025-03-26');
    const controller = new AbortController();
    let watcher: { handleEvent(): void } | undefined;
    const body = JSON.stringify(
      [1, 2, 3].map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'wait' },
      })),
    );
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-03-26',
      host: '127.0.0.1:8787',
    });
    // Like the Node adapter's light request: watch() keeps one listener at a time.
    const request: IncomingRequest = {
      method: 'POST',
      url: MCP_URL,
      headers,
      signal: controller.signal,
      body: null,
      readText: () => Promise.resolve(body),
      watch(listener) {
        watcher = listener;
      },
    };
    const answer = handler[HANDLE](request);
    await expect.poll(() => handler.inFlight).toBe(3);
    controller.abort();
    watcher?.handleEvent();
    await answer;
    await expect.poll(() => reasons.length).toBe(3);
    expect(reasons).toEqual(['disconnect', 'disconnect', 'disconnect']);
  });
});

test('onClose runs once, after every handler settled, before close() resolves; its failure does not reject close()', async () => {
  const server = new McpServer({ name: 'on-close', version: '1' });
  const order: string[] = [];
  server.tool(
    'wait',
    {},
    (_args, ctx) =>
      new Promise((_, reject) =>
        ctx.signal.addEventListener(
          'abort',
          () => {
            order.push('handler aborted');
            reject(ctx.signal.reason);
          },
          { once: true },
        ),
      ),
  );
  let calls = 0;
  const handler = createMcpHandler(server, {
    onClose: async () => {
      calls++;
      order.push(`onClose (in flight ${handler.inFlight})`);
      throw new Error('the store would not close');
    },
  });
  const running = handler.fetch(modernRequest('tools/call', { name: 'wait' }));
  await expect.poll(() => handler.inFlight).toBe(1);
  await Promise.all([handler.close(), handler.close()]);
  order.push('closed');
  expect(order).toEqual(['handler aborted', 'onClose (in flight 0)', 'closed']);
  expect(calls).toBe(1);
  await running;
});
