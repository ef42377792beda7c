import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  postRequest,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpServer } from '../src/index.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'streams', version: '1.0.0' });
  s.tool(
    'ask',
    { description: 'asks the user for a name', inputSchema: z.object({ greeting: z.string() }) },
    async ({ greeting }, ctx) => {
      const answer = await ctx.elicit({
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return `${greeting}, ${(answer.content as { name: string }).name}`;
    },
  );
  s.tool(
    'echo',
    { description: 'echo', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  s.resource('watched', 'test://watched', {}, () => 'watched');
  s.resource('other', 'test://other', {}, () => 'other');
  return s;
}

describe('the standalone GET stream', () => {
  test('carries list changes; a dropped GET stream is not a dead session; Last-Event-ID replays what was missed', async () => {
    const s = server();
    const handler = createMcpHandler(s);
    const session = await openSession(handler, '2025-11-25');
    const first = new SseReader(await handler.fetch(legacyGetRequest(session)));
    const priming = await first.next();
    expect(priming?.id).toBe('0-0');
    s.notifyListChanged('tools');
    const changed = await first.message();
    expect(changed?.method).toBe('notifications/tools/list_changed');
    await first.cancel();
    // While no GET stream is open, more notifications are stored for this session's stream.
    s.notifyListChanged('prompts');
    s.notifyListChanged('resources');
    // The session is fine.
    expect(
      (await readAnswer(await handler.fetch(legacyRequest('ping', undefined, session)))).message
        .result,
    ).toEqual({});
    const resumed = new SseReader(
      await handler.fetch(legacyGetRequest(session, changed?._eventId)),
    );
    expect((await resumed.message())?.method).toBe('notifications/prompts/list_changed');
    expect((await resumed.message())?.method).toBe('notifications/resources/list_changed');
    // And it goes on live.
    s.notifyListChanged('tools');
    expect((await resumed.message())?.method).toBe('notifications/tools/list_changed');
    await resumed.cancel();
  });

  test('a second GET replaces a stale one instead of answering 409', async () => {
    const s = server();
    const handler = createMcpHandler(s);
    const session = await openSession(handler, '2025-06-18');
    const stale = new SseReader(await handler.fetch(legacyGetRequest(session)));
    const fresh = await handler.fetch(legacyGetRequest(session));
    expect(fresh.status).toBe(200);
    // The old connection ends; the new one gets the traffic.
    expect(await stale.next()).toBeUndefined();
    const reader = new SseReader(fresh);
    s.notifyListChanged('tools');
    expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
    expect(handler.stats().openStreams).toBe(1);
    await reader.cancel();
    await expect.poll(() => handler.stats().openStreams).toBe(0);
  });

  test('resource updates reach only the sessions subscribed to that URI', async () => {
    const s = server();
    const handler = createMcpHandler(s);
    const subscriber = await openSession(handler, '2025-06-18');
    const bystander = await openSession(handler, '2025-06-18');
    await readAnswer(
      await handler.fetch(
        legacyRequest('resources/subscribe', { uri: 'test://watched' }, subscriber),
      ),
    );
    const mine = new SseReader(await handler.fetch(legacyGetRequest(subscriber)));
    const theirs = new SseReader(await handler.fetch(legacyGetRequest(bystander)));
    s.notifyResourceUpdated('test://other');
    s.notifyResourceUpdated('test://watched');
    expect(await mine.message()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched' },
    });
    s.notifyListChanged('tools'); // a marker: the bystander's first message must be this, not an update
    expect((await theirs.message())?.method).toBe('notifications/tools/list_changed');
    await readAnswer(
      await handler.fetch(
        legacyRequest('resources/unsubscribe', { uri: 'test://watched' }, subscriber),
      ),
    );
    s.notifyResourceUpdated('test://watched');
    s.notifyListChanged('prompts');
    expect((await mine.message())?.method).toBe('notifications/tools/list_changed');
    expect((await mine.message())?.method).toBe('notifications/prompts/list_changed');
    await mine.cancel();
    await theirs.cancel();
  });

  test('GET needs Accept text/event-stream (406) and a live session (400/404)', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler);
    const noAccept = new Request('http://127.0.0.1/mcp', {
      method: 'GET',
      headers: { accept: 'application/json', 'mcp-session-id': session },
    });
    expect((await handler.fetch(noAccept)).status).toBe(406);
    expect(
      (
        await handler.fetch(
          new Request('http://127.0.0.1/mcp', {
            method: 'GET',
            headers: { accept: 'text/event-stream' },
          }),
        )
      ).status,
    ).toBe(400);
    expect((await handler.fetch(legacyGetRequest('unknown'))).status).toBe(404);
    expect((await handler.fetch(legacyGetRequest(session, 'garbage'))).status).toBe(400);
  });

  test('a Last-Event-ID of another session replays nothing of this one', async () => {
    const s = server();
    const handler = createMcpHandler(s);
    const a = await openSession(handler, '2025-11-25');
    const b = await openSession(handler, '2025-11-25');
    const streamA = new SseReader(await handler.fetch(legacyGetRequest(a)));
    await streamA.next();
    s.notifyListChanged('tools');
    const seen = await streamA.message();
    await streamA.cancel();
    // Session b presents a's event id: it must not receive a's events.
    const streamB = new SseReader(await handler.fetch(legacyGetRequest(b, '0-0')));
    s.notifyListChanged('prompts');
    const first = await streamB.message();
    expect(first?.method).toBe('notifications/prompts/list_changed');
    expect(seen?.method).toBe('notifications/tools/list_changed');
    await streamB.cancel();
  });
});

describe('server-to-client requests', () => {
  test('elicitation goes out on the request stream and the POSTed answer reaches the handler', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler, '2025-11-25', { elicitation: {} });
    const reader = new SseReader(
      await handler.fetch(
        legacyRequest('tools/call', { name: 'ask', arguments: { greeting: 'Hello' } }, session),
      ),
    );
    const request = await reader.message();
    expect(request).toMatchObject({
      jsonrpc: '2.0',
      method: 'elicitation/create',
      params: { message: 'Name?' },
    });
    const answered = await handler.fetch(
      postRequest(
        { jsonrpc: '2.0', id: request?.id, result: { action: 'accept', content: { name: 'Ada' } } },
        session,
      ),
    );
    expect(answered.status).toBe(202);
    expect((await reader.message())?.result.content[0].text).toBe('Hello, Ada');
  });

  test('a client without the capability gets a tool error, not a request', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler, '2025-11-25');
    const answer = await readAnswer(
      await handler.fetch(
        legacyRequest('tools/call', { name: 'ask', arguments: { greeting: 'Hi' } }, session),
      ),
    );
    expect(answer.contentType).toBe('application/json');
    expect(answer.message.result).toMatchObject({
      isError: true,
      content: [{ text: 'The client does not support elicitation' }],
    });
  });
});

describe('batches (2025-03-26 only)', () => {
  test('a batch of requests and a notification gets one JSON array of the responses', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler, '2025-03-26');
    const batch = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'a' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    const response = await handler.fetch(postRequest(batch, session));
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  test('a batch on a 2025-06-18 session, or a batched initialize, is rejected', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler, '2025-06-18');
    const rejected = await handler.fetch(
      postRequest([{ jsonrpc: '2.0', id: 1, method: 'ping' }], session),
    );
    expect(rejected.status).toBe(400);
    const old = await openSession(handler, '2025-03-26');
    const withInit = await handler.fetch(
      postRequest(
        [
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-03-26', capabilities: {} },
          },
        ],
        old,
      ),
    );
    expect((await withInit.json())[0].error.code).toBe(-32600);
  });
});

describe('both eras on one endpoint', () => {
  test('a modern request on a server with sessions ignores Mcp-Session-Id and is cancelled on disconnect', async () => {
    const s = server();
    let seen: AbortSignal | undefined;
    const started = new Promise<void>((resolve) => {
      s.tool('wait', { description: 'waits for its signal' }, async (_a, ctx) => {
        seen = ctx.signal;
        resolve();
        await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
        return 'aborted';
      });
    });
    const handler = createMcpHandler(s);
    const session = await openSession(handler);
    const client = new AbortController();
    const responding = handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'wait' },
        { signal: client.signal, headers: { 'mcp-session-id': session } },
      ),
    );
    await started;
    expect(seen?.aborted).toBe(false);
    client.abort();
    expect((await responding).status).toBe(499);
    expect((seen?.reason as { type?: string } | undefined)?.type).toBe('disconnect');
  });
});

test('a fresh GET primes with the newest event id, so a later resume does not replay what was delivered', async () => {
  const s = server();
  const handler = createMcpHandler(s);
  const session = await openSession(handler, '2025-11-25');
  const first = new SseReader(await handler.fetch(legacyGetRequest(session)));
  await first.next();
  s.notifyListChanged('tools');
  const delivered = await first.message();
  await first.cancel();
  const second = new SseReader(await handler.fetch(legacyGetRequest(session)));
  const priming = await second.next();
  expect(priming?.id).toBe(delivered?._eventId);
  await second.cancel();
  s.notifyListChanged('prompts');
  const resumed = new SseReader(await handler.fetch(legacyGetRequest(session, priming?.id)));
  expect((await resumed.message())?.method).toBe('notifications/prompts/list_changed');
  await resumed.cancel();
});
