/**
 * Legacy sessions across three handlers sharing one Redis (design §4.7, the core's cluster
 * scenarios on Redis): cancels, client responses, resumed streams relayed from their holder,
 * the standalone stream's home, DELETE reaching the instance that holds what it ends.
 */
import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  openSession,
  postRequest,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { useRedis } from './helpers.ts';
import { aborted, type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const ELICIT = { elicitation: { form: {} } };
const redis = useRedis();

function nodes(count = 3, grace = 5000) {
  return startNodes(redis().url, { count, options: { disconnectGraceMs: grace } }) as Promise<
    [Node, Node, Node]
  >;
}

function ping(node: Node, session: string) {
  return node.handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

function tool(name: string, args: Record<string, unknown> = {}, progress = false) {
  return progress
    ? { name, arguments: args, _meta: { progressToken: 'p' } }
    : { name, arguments: args };
}

describe('legacy sessions across instances on Redis', () => {
  test('any instance serves the session; state written on one is seen on the next', async () => {
    const [a, b, c] = await nodes();
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b, b]) {
      const answer = await readAnswer(
        await node.handler.fetch(
          legacyRequest('tools/call', tool('count'), session, { version: V }),
        ),
      );
      counts.push(answer.message.result.content[0].text);
    }
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
    expect(b.cluster.sessions.peek(session)?.ids?.stream()).toMatch(
      new RegExp(`^${b.cluster.instance}\\.\\d+$`),
    );
  });

  test('notifications/cancelled on B aborts the handler running on A (client-cancel)', async () => {
    const [a, b] = await nodes();
    const session = await openSession(a.handler, V);
    const started = a.started();
    const pending = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V, id: 7 }),
    );
    const signal = await started;
    const t0 = Date.now();
    const cancel = await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 7 }, session, { version: V }),
    );
    expect(cancel.status).toBe(202);
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'client-cancel' });
    // Loopback, one shared 2-core machine: a few ms usually; the bound leaves room for load.
    expect(Date.now() - t0).toBeLessThan(250);
    expect((await pending).status).toBe(200);
  });

  test('a cancel broadcast before its request registered is applied when it does', async () => {
    const [a, b] = await nodes();
    const session = await openSession(a.handler, V);
    await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 'early' }, session, {
        version: V,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await readAnswer(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, {
          version: V,
          id: 'early',
        }),
      ),
    );
    expect(a.signals[0]?.reason).toMatchObject({ type: 'client-cancel' });
    expect(answer.status).toBe(200);
  });

  test('a server→client request from A, answered by a response POSTed to C, reaches the handler on A', async () => {
    const [a, , c] = await nodes();
    const session = await openSession(a.handler, V, ELICIT);
    const reader = new SseReader(
      await a.handler.fetch(legacyRequest('tools/call', tool('ask'), session, { version: V })),
    );
    const asked = await reader.until((m) => m.method === 'elicitation/create');
    expect(asked.id).toMatch(new RegExp(`^s${a.cluster.instance}\\.`));
    const posted = await c.handler.fetch(
      postRequest(
        { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } },
        session,
        { version: V },
      ),
    );
    expect(posted.status).toBe(202);
    const result = await reader.until((m) => m.result !== undefined);
    expect(result.result.content[0].text).toBe('hello Ada');
  });

  test("Last-Event-ID on B relays A's live stream: every event once, in order, then the answer", async () => {
    const [a, b] = await nodes();
    const session = await openSession(a.handler, V);
    const count = 60;
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count, ms: 5 }, true), session, { version: V }),
      ),
    );
    const seen: number[] = [];
    const ids: string[] = [];
    let last: string | undefined;
    while (seen.length < 5) {
      const message = await first.message();
      if (message?.method === 'notifications/progress') {
        seen.push(message.params.progress);
        ids.push(message._eventId as string);
      }
      last = message?._eventId ?? last;
    }
    await first.cancel();
    const resumed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, last, { version: V })),
    );
    let answer: Record<string, any> | undefined;
    for (let m = await resumed.message(); m; m = await resumed.message()) {
      if (m.method === 'notifications/progress') {
        seen.push(m.params.progress);
        ids.push(m._eventId as string);
      } else if (m.result) answer = m;
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    const seqs = ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(answer?.result.content[0].text).toBe('dripped');
    // Forwarded over the bus, not only replayed.
    expect(b.cluster.stats().received).toBeGreaterThan(1);
    expect(a.signals[0]?.aborted).toBe(false);
    expect(b.handler.stats().openStreams).toBe(0);
  });

  test("a relay's client leaving gives A's handler its grace, and a resume on C within it completes", async () => {
    const [a, b, c] = await nodes();
    const session = await openSession(a.handler, V);
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count: 40, ms: 10 }, true), session, {
          version: V,
        }),
      ),
    );
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    );
    const two = await relayed.until((m) => m.method === 'notifications/progress');
    await relayed.cancel();
    const rest = await new SseReader(
      await c.handler.fetch(legacyGetRequest(session, two._eventId, { version: V })),
    ).rest();
    expect(rest.at(-1)?.result.content[0].text).toBe('dripped');
    expect(a.signals[0]?.aborted).toBe(false);
  });

  test("DELETE on B ends A's GET stream and call (session-deleted); onSessionClose once, on B", async () => {
    const all = await nodes();
    const [a, b, c] = all;
    const session = await openSession(a.handler, V);
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    expect((await stream.next())?.id).toBe('0-0');
    const started = a.started();
    const call = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V }),
    );
    const signal = await started;
    const deleted = await b.handler.fetch(legacyDeleteRequest(session, { version: V }));
    expect(deleted.status).toBe(200);
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await call).status).toBe(404);
    for (const node of all) expect((await ping(node, session)).status).toBe(404);
    expect(b.closes.map((e) => e.reason)).toEqual(['session-deleted']);
    expect([...a.closes, ...c.closes]).toEqual([]);
  });

  test("a fresh GET on B relays the standalone stream homed on A (primed with A's newest id)", async () => {
    const [a, b] = await nodes();
    const session = await openSession(a.handler, V);
    const home = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await home.next();
    a.server.notifyListChanged('tools');
    const before = await home.message();
    const relayed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    expect((await relayed.next())?.id).toBe(before?._eventId);
    expect(await home.next()).toBeUndefined();
    a.server.notifyListChanged('prompts');
    expect((await relayed.message())?.method).toBe('notifications/prompts/list_changed');
    // Raised on B: delivered to A (the home), which stores it and forwards it to B's relay, once.
    b.server.notifyListChanged('resources');
    expect((await relayed.message())?.method).toBe('notifications/resources/list_changed');
    a.server.notifyListChanged('tools');
    expect((await relayed.message())?.method).toBe('notifications/tools/list_changed');
    await relayed.cancel();
  });
});
