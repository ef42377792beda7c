import {
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  createMcpHandler,
  McpServer,
  type RequestAbortedError,
  type RequestEvent,
  type SessionEvent,
} from '../src/index.ts';
import { aborted } from './helpers.ts';

/** `work` reports progress `steps` times, each step released by the test (no timers). */
function server() {
  const runs: Array<{ signal: AbortSignal; step: () => void; finished: boolean; done: number }> =
    [];
  const started: Array<() => void> = [];
  const s = new McpServer({ name: 'lifecycle', version: '1.0.0' });
  s.tool(
    'work',
    { description: 'stepped work', inputSchema: z.object({ steps: z.number() }) },
    async ({ steps }, ctx) => {
      let wake: () => void = () => {};
      const run = { signal: ctx.signal, step: () => wake(), finished: false, done: 0 };
      runs.push(run);
      started.shift()?.();
      for (let i = 1; i <= steps; i++) {
        await new Promise<void>((resolve, reject) => {
          wake = resolve;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        });
        ctx.progress(i, steps, `step ${i}`);
        run.done = i;
      }
      run.finished = true;
      return `done after ${steps}`;
    },
  );
  s.resource('r', 'test://r', {}, () => 'r');
  const nextStart = () => new Promise<void>((resolve) => started.push(resolve));
  return { s, runs, nextStart };
}

const meta = { progressToken: 'p' };

describe('legacy disconnect policy', () => {
  test('a dropped stream that cannot be resumed (no event store) aborts the handler at once', async () => {
    const { s, runs, nextStart } = server();
    const handler = createMcpHandler(s, { eventStore: false });
    const session = await openSession(handler);
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 3 }, _meta: meta }, session),
    );
    await starting;
    runs[runs.length - 1]?.step();
    const response = await responding;
    await expect.poll(() => runs[0]?.done).toBe(1);
    runs[0]?.step();
    const reader = new SseReader(response);
    expect((await reader.message())?.method).toBe('notifications/progress');
    await reader.cancel();
    const reason = (await aborted(runs[0]!.signal, 1000)) as RequestAbortedError;
    expect(reason.type).toBe('disconnect');
    // The session itself lives on.
    expect((await handler.fetch(legacyRequest('ping', undefined, session))).status).toBe(200);
  });

  test('a JSON answer still pending when the client drops aborts at once (nothing to resume)', async () => {
    const { s, runs, nextStart } = server();
    const handler = createMcpHandler(s);
    const session = await openSession(handler);
    const client = new AbortController();
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 1 } }, session, {
        signal: client.signal,
      }),
    );
    await starting;
    client.abort();
    expect(((await aborted(runs[0]!.signal, 1000)) as RequestAbortedError).type).toBe('disconnect');
    expect((await responding).status).toBe(499);
  });

  test('a resumable stream keeps its handler running; GET with Last-Event-ID replays the missed events and goes on live', async () => {
    const { s, runs, nextStart } = server();
    const events: RequestEvent[] = [];
    const handler = createMcpHandler(s, { onRequest: (e) => events.push(e) });
    const session = await openSession(handler, '2025-11-25');
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 3 }, _meta: meta }, session, {
        id: 'call-1',
      }),
    );
    await starting;
    runs[runs.length - 1]?.step();
    const response = await responding;
    const reader = new SseReader(response);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: '', retry: 1000 });
    expect(priming?.id).toMatch(/-0$/);
    const first = await reader.message();
    expect(first?.params.progress).toBe(1);
    await reader.cancel();
    // Dropped, not cancelled: work goes on while the client is away.
    runs[0]?.step();
    await expect.poll(() => runs[0]?.done).toBe(2);
    runs[0]?.step();
    await expect.poll(() => runs[0]?.finished).toBe(true);
    expect(runs[0]?.signal.aborted).toBe(false);
    const resumed = new SseReader(await handler.fetch(legacyGetRequest(session, first?._eventId)));
    const replay = [await resumed.message(), await resumed.message(), await resumed.message()];
    expect(replay.map((m) => m?.params?.progress ?? m?.result?.content[0].text)).toEqual([
      2,
      3,
      'done after 3',
    ]);
    expect(replay[2]?.id).toBe('call-1');
    expect(await resumed.next()).toBeUndefined();
    expect(handler.stats().resumed).toBe(1);
    expect(events.find((e) => e.id === 'call-1')).toMatchObject({
      outcome: 'ok',
      sessionId: session,
    });
  });

  test('a resume re-attaches a handler that is still running; it finishes live', async () => {
    const { s, runs, nextStart } = server();
    const handler = createMcpHandler(s);
    const session = await openSession(handler, '2025-11-25');
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 2 }, _meta: meta }, session),
    );
    await starting;
    runs[runs.length - 1]?.step();
    const response = await responding;
    const reader = new SseReader(response);
    const priming = await reader.next();
    await reader.cancel();
    const resumed = new SseReader(await handler.fetch(legacyGetRequest(session, priming?.id)));
    expect((await resumed.message())?.params.progress).toBe(1);
    await expect.poll(() => runs[0]?.done).toBe(1);
    runs[0]?.step();
    expect((await resumed.message())?.params.progress).toBe(2);
    expect((await resumed.message())?.result.content[0].text).toBe('done after 2');
    expect(runs[0]?.signal.aborted).toBe(false);
  });

  test('without a resume within the grace window the handler is aborted with disconnect', async () => {
    const { s, runs, nextStart } = server();
    const handler = createMcpHandler(s, { disconnectGraceMs: 50 });
    const session = await openSession(handler, '2025-11-25');
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 3 }, _meta: meta }, session),
    );
    await starting;
    runs[runs.length - 1]?.step();
    const response = await responding;
    const reader = new SseReader(response);
    await reader.next();
    await reader.cancel();
    expect(((await aborted(runs[0]!.signal, 2000)) as RequestAbortedError).type).toBe('disconnect');
    expect(runs[0]?.finished).toBe(false);
  });

  test('notifications/cancelled aborts at once with client-cancel, even on a resumable stream', async () => {
    const { s, runs, nextStart } = server();
    const events: RequestEvent[] = [];
    const handler = createMcpHandler(s, { onRequest: (e) => events.push(e) });
    const session = await openSession(handler, '2025-11-25');
    const starting = nextStart();
    const responding = handler.fetch(
      legacyRequest('tools/call', { name: 'work', arguments: { steps: 3 }, _meta: meta }, session, {
        id: 42,
      }),
    );
    await starting;
    runs[runs.length - 1]?.step();
    const response = await responding;
    expect(
      (
        await handler.fetch(
          notificationRequest(
            'notifications/cancelled',
            { requestId: 42, reason: 'user' },
            session,
          ),
        )
      ).status,
    ).toBe(202);
    expect(((await aborted(runs[0]!.signal, 1000)) as RequestAbortedError).type).toBe(
      'client-cancel',
    );
    // The stream ends without a response for the cancelled request.
    const reader = new SseReader(response);
    const rest = [];
    for (let m = await reader.message(); m; m = await reader.message()) rest.push(m);
    expect(rest.filter((m) => 'result' in m || 'error' in m)).toEqual([]);
    await expect
      .poll(() => events.find((e) => e.id === 42))
      .toMatchObject({ outcome: 'cancelled', reason: 'client-cancel' });
  });
});

describe('shutdown ends every session', () => {
  test('an initialize whose body arrives after close() gets 503 and opens no session', async () => {
    const handler = createMcpHandler(server().s);
    const init = legacyRequest('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'late', version: '1' },
    });
    const text = new TextEncoder().encode(await init.text());
    let push: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = controller;
      },
    });
    const pending = handler.fetch(
      new Request(init.url, {
        method: 'POST',
        headers: init.headers,
        body,
        duplex: 'half',
      } as RequestInit),
    );
    // The request has passed the shutdown check and is reading its body when the server closes.
    push?.enqueue(text.subarray(0, 10));
    await handler.close();
    push?.enqueue(text.subarray(10));
    push?.close();
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(handler.stats()).toMatchObject({ sessions: 0, sessionsOpened: 0 });
  });

  test('close(): in-flight handlers aborted with shutdown, GET streams ended, onClose hooks run, the manager empty', async () => {
    const { s, runs, nextStart } = server();
    const closedSessions: SessionEvent[] = [];
    const hooks: string[] = [];
    s.tool('remember', { description: 'registers an onClose hook' }, (_a, ctx) => {
      ctx.session?.onClose((reason) => hooks.push(reason));
      return 'ok';
    });
    const handler = createMcpHandler(s, { onSessionClose: (e) => closedSessions.push(e) });
    const sessions = await Promise.all(Array.from({ length: 20 }, () => openSession(handler)));
    const calls = [];
    for (const session of sessions.slice(0, 10)) {
      const starting = nextStart();
      calls.push(
        handler.fetch(
          legacyRequest('tools/call', { name: 'work', arguments: { steps: 5 } }, session),
        ),
      );
      await starting;
    }
    const streams = await Promise.all(
      sessions.slice(10).map((session) => handler.fetch(legacyGetRequest(session))),
    );
    for (const session of sessions)
      await readAnswer(
        await handler.fetch(legacyRequest('tools/call', { name: 'remember' }, session)),
      );
    expect(handler.stats()).toMatchObject({ sessions: 20, openStreams: 10, inFlight: 10 });

    await handler.close();

    for (const run of runs)
      expect((run.signal.reason as RequestAbortedError).type).toBe('shutdown');
    for (const call of await Promise.all(calls)) expect(call.status).toBe(503);
    for (const stream of streams) {
      const reader = new SseReader(stream);
      while (await reader.next()) {}
      expect(reader.done).toBe(true);
    }
    expect(hooks).toEqual(Array(20).fill('shutdown'));
    expect(closedSessions.map((e) => e.reason)).toEqual(Array(20).fill('shutdown'));
    expect(handler.stats()).toMatchObject({ sessions: 0, openStreams: 0, inFlight: 0 });
  });
});
