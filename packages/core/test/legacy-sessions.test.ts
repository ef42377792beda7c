import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  openSession,
  postRequest,
  readAnswer,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpServer, type SessionEvent } from '../src/index.ts';
import { SessionManager } from '../src/sessions.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'legacy', version: '1.0.0', instructions: 'hi' });
  s.tool(
    'echo',
    { description: 'echo', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => text,
  );
  s.tool('count', { description: 'a running sum kept in the session' }, (_args, ctx) => {
    const state = ctx.session?.state;
    if (!state) return 'no session';
    const next = ((state.get('sum') as number | undefined) ?? 0) + 1;
    if (next === 1) ctx.session?.onClose((reason) => closed.push(reason));
    state.set('sum', next);
    return String(next);
  });
  s.resource('r', 'test://r', {}, () => 'r');
  return s;
}
const closed: string[] = [];

describe('legacy handshake and sessions', () => {
  test('initialize negotiates the version and mints an unguessable visible-ASCII session id', async () => {
    const handler = createMcpHandler(server());
    for (const [asked, got] of [
      ['2025-03-26', '2025-03-26'],
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['2024-11-05', '2025-11-25'],
      ['2099-01-01', '2025-11-25'],
    ]) {
      const response = await handler.fetch(
        legacyRequest('initialize', {
          protocolVersion: asked,
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      );
      const session = response.headers.get('mcp-session-id');
      const body = await response.json();
      expect(body.result.protocolVersion, asked).toBe(got);
      expect(body.result.serverInfo).toEqual({ name: 'legacy', version: '1.0.0' });
      expect(body.result.instructions).toBe('hi');
      expect(body.result.capabilities.tools).toBeDefined();
      expect(body.result.resultType).toBeUndefined();
      expect(session).toMatch(/^[\x21-\x7e]{32,}$/);
    }
    expect(handler.stats().sessions).toBe(5);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await openSession(handler));
    expect(ids.size).toBe(20);
  });

  test('requests need a live session: 400 without the header, 404 for an unknown id, 400 for a bad version header', async () => {
    const handler = createMcpHandler(server());
    expect((await handler.fetch(legacyRequest('tools/list', {}))).status).toBe(400);
    const unknown = await handler.fetch(legacyRequest('tools/list', {}, 'nope'));
    expect(unknown.status).toBe(404);
    const session = await openSession(handler);
    expect(
      (await handler.fetch(legacyRequest('tools/list', {}, session, { version: '1999-01-01' })))
        .status,
    ).toBe(400);
    const ok = await readAnswer(
      await handler.fetch(legacyRequest('tools/list', {}, session, { version: '2025-11-25' })),
    );
    expect(ok.message.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'count']);
    expect(ok.message.result.ttlMs).toBeUndefined();
  });

  test('ping, logging/setLevel, unknown method, resource not found (-32002) in legacy shapes', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler);
    expect(
      (await readAnswer(await handler.fetch(legacyRequest('ping', undefined, session)))).message
        .result,
    ).toEqual({});
    expect(
      (
        await readAnswer(
          await handler.fetch(legacyRequest('logging/setLevel', { level: 'info' }, session)),
        )
      ).message.result,
    ).toEqual({});
    expect(
      (
        await readAnswer(
          await handler.fetch(legacyRequest('logging/setLevel', { level: 'loud' }, session)),
        )
      ).message.error.code,
    ).toBe(-32602);
    const unknown = await readAnswer(
      await handler.fetch(legacyRequest('nope/nothing', {}, session)),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.message.error.code).toBe(-32601);
    const missing = await readAnswer(
      await handler.fetch(legacyRequest('resources/read', { uri: 'test://none' }, session)),
    );
    expect(missing.message.error).toMatchObject({ code: -32002, data: { uri: 'test://none' } });
  });

  test('DELETE ends the session: onClose runs, the state is gone, the id answers 404', async () => {
    const events: SessionEvent[] = [];
    const handler = createMcpHandler(server(), { onSessionClose: (e) => events.push(e) });
    const session = await openSession(handler);
    const first = await readAnswer(
      await handler.fetch(legacyRequest('tools/call', { name: 'count' }, session)),
    );
    const second = await readAnswer(
      await handler.fetch(legacyRequest('tools/call', { name: 'count' }, session)),
    );
    expect([first.message.result.content[0].text, second.message.result.content[0].text]).toEqual([
      '1',
      '2',
    ]);
    closed.length = 0;
    const deleted = await handler.fetch(legacyDeleteRequest(session));
    expect(deleted.status).toBe(200);
    expect(closed).toEqual(['session-deleted']);
    expect(events).toMatchObject([{ sessionId: session, reason: 'session-deleted' }]);
    expect((await handler.fetch(legacyRequest('tools/list', {}, session))).status).toBe(404);
    const again = await handler.fetch(legacyDeleteRequest(session));
    expect(again.status).toBe(404);
    expect(handler.stats().sessions).toBe(0);
  });

  test('at the cap a new session evicts the longest-idle one; only when all are busy is it 503', async () => {
    const closed: SessionEvent[] = [];
    const handler = createMcpHandler(server(), {
      sessions: new SessionManager({ maxSessions: 2 }),
      onSessionClose: (event) => closed.push(event),
    });
    const oldest = await openSession(handler);
    const newer = await openSession(handler);
    // `oldest` is used again: now `newer` has been idle longest.
    expect((await handler.fetch(legacyRequest('ping', {}, oldest))).status).toBe(200);
    const third = await openSession(handler);
    expect(closed).toEqual([
      expect.objectContaining({ sessionId: newer, reason: 'session-evicted' }),
    ]);
    expect((await handler.fetch(legacyRequest('ping', {}, newer))).status).toBe(404);
    expect(handler.stats()).toMatchObject({ sessions: 2, evicted: 1 });
    // Both left busy (an open GET stream each): nothing can give way.
    const streams = await Promise.all(
      [oldest, third].map((s) => handler.fetch(legacyGetRequest(s))),
    );
    const full = await handler.fetch(
      legacyRequest('initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
    );
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    await Promise.all(streams.map((response) => response.body?.cancel()));
    await expect.poll(() => handler.stats().openStreams).toBe(0);
    await openSession(handler);
    expect(handler.stats()).toMatchObject({ sessions: 2, evicted: 2 });
  });

  test('the idle timeout reaps an idle session but never one with an in-flight request or an open stream', async () => {
    const s = server();
    let release: () => void = () => {};
    let holding: () => void = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    s.tool(
      'hold',
      { description: 'holds until released' },
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve('released');
          holding();
        }),
    );
    const reaped: SessionEvent[] = [];
    // busy's call and streaming's stream start right after each opens, before anything else; no
    // stall of a loaded machine lasts a whole window between the two. The sweep runs every tenth.
    const idleTimeoutMs = 2000;
    const handler = createMcpHandler(s, {
      sessions: new SessionManager({ idleTimeoutMs }),
      onSessionClose: (e) => reaped.push(e),
    });
    const reapedIds = () => reaped.map((e) => e.sessionId);
    const window = { timeout: 3 * idleTimeoutMs };
    const busy = await openSession(handler);
    const call = handler.fetch(legacyRequest('tools/call', { name: 'hold' }, busy));
    await held;
    const streaming = await openSession(handler);
    const stream = await handler.fetch(legacyGetRequest(streaming));
    expect(stream.status).toBe(200);
    const idle = await openSession(handler);
    // The idle one goes (an event, not a sleep)...
    await expect.poll(reapedIds, window).toContain(idle);
    expect(reaped[0]).toMatchObject({ sessionId: idle, reason: 'session-expired' });
    expect(handler.stats().reaped).toBe(1);
    expect((await handler.fetch(legacyRequest('ping', undefined, idle))).status).toBe(404);
    // ...then a whole idle window more passes: a session opened now is reaped in turn, while the
    // busy and streaming ones, idle for longer than that in wall time, are still there.
    const probe = await openSession(handler);
    await expect.poll(reapedIds, window).toContain(probe);
    expect(reapedIds()).toEqual([idle, probe]);
    release();
    expect((await readAnswer(await call)).message.result.content[0].text).toBe('released');
    // Once the call is over, the busy session can idle out too.
    await expect.poll(reapedIds, window).toContain(busy);
    expect(reapedIds()).not.toContain(streaming);
    await stream.body?.cancel();
    await expect.poll(reapedIds, window).toContain(streaming);
  }, 30_000);

  test('notifications and client responses are accepted with 202', async () => {
    const handler = createMcpHandler(server());
    const session = await openSession(handler);
    expect(
      (await handler.fetch(notificationRequest('notifications/roots/list_changed', {}, session)))
        .status,
    ).toBe(202);
    const response = postRequest({ jsonrpc: '2.0', id: 'unknown', result: {} }, session);
    expect((await handler.fetch(response)).status).toBe(202);
  });

  test('sessions: false serves legacy requests without sessions', async () => {
    const handler = createMcpHandler(server(), { sessions: false });
    const init = await handler.fetch(
      legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {} }),
    );
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect((await init.json()).result.protocolVersion).toBe('2025-06-18');
    const call = await readAnswer(
      await handler.fetch(
        legacyRequest('tools/call', { name: 'echo', arguments: { text: 'x' } }, undefined, {
          version: '2025-06-18',
        }),
      ),
    );
    expect(call.message.result.content[0].text).toBe('x');
    const getResponse = await handler.fetch(legacyGetRequest());
    expect(getResponse.status).toBe(405);
  });
});
