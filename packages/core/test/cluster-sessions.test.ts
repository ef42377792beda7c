/**
 * The core's cluster seam (issue 15, design §3), proven with the memory cluster double: legacy
 * sessions served by any of three handlers, with cancels, client responses, resumed streams and
 * session ends reaching the instance that holds what they concern.
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
import { afterEach, describe, expect, test } from 'vitest';
import type { McpHandler } from '../src/index.ts';
import { aborted } from './helpers.ts';
import { type Node, startCluster } from './support/cluster-setup.ts';

const V = '2025-11-25';
const ELICIT = { elicitation: { form: {} } };

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

function cluster() {
  const started = startCluster(3, { disconnectGraceMs: 5000 });
  running = started.nodes;
  return started;
}

function ping(handler: McpHandler, session: string) {
  return handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

function tool(name: string, args: Record<string, unknown> = {}, progress = false) {
  return progress
    ? { name, arguments: args, _meta: { progressToken: 'p' } }
    : { name, arguments: args };
}

describe('legacy sessions across instances (memory cluster)', () => {
  test('any instance serves the session; state written on one is seen on the next (the answer waits for the write)', async () => {
    const { nodes } = cluster();
    const [a, b, c] = nodes;
    a.instance.records.writeDelayMs = 20;
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b]) {
      const answer = await readAnswer(
        await node.handler.fetch(
          legacyRequest('tools/call', tool('count'), session, { version: V }),
        ),
      );
      counts.push(answer.message.result.content[0].text);
    }
    expect(counts).toEqual(['1', '2', '3', '4']);
    // Ids name the instance that made them.
    expect(b.instance.links.ids.stream()).toMatch(/^ib\.\d+$/);
  });

  test('notifications/cancelled on B aborts the handler running on A (client-cancel)', async () => {
    const { nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const started = a.started();
    const pending = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V, id: 7 }),
    );
    const signal = await started;
    const cancel = await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 7 }, session, { version: V }),
    );
    expect(cancel.status).toBe(202);
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'client-cancel' });
    expect((await pending).status).toBe(200);
  });

  test('a server→client request from A, answered by a response POSTed to C, reaches the handler on A', async () => {
    const { nodes } = cluster();
    const [a, , c] = nodes;
    const session = await openSession(a.handler, V, ELICIT);
    const reader = new SseReader(
      await a.handler.fetch(legacyRequest('tools/call', tool('ask'), session, { version: V })),
    );
    const asked = await reader.until((m) => m.method === 'elicitation/create');
    expect(asked.id).toMatch(/^sia\./);
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
    const { world, nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const count = 60;
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count, ms: 3 }, true), session, { version: V }),
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
    // The handler on A goes on (the stream is resumable: grace), storing its progress.
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
    expect(world.sent.get('ev') ?? 0).toBeGreaterThan(0);
    expect(a.signals[0]?.aborted).toBe(false);
    // The relay counted as B's stream, and is over.
    expect(b.handler.stats().openStreams).toBe(0);
  });

  test("a relay's client leaving gives A's handler its disconnect grace, and a resume on C within it completes", async () => {
    const { nodes } = cluster();
    const [a, b, c] = nodes;
    const session = await openSession(a.handler, V);
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count: 30, ms: 5 }, true), session, {
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

  test("DELETE on B ends A's GET stream (session-deleted); onSessionClose fires once, on B", async () => {
    const { nodes } = cluster();
    const [a, b, c] = nodes;
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
    for (const node of nodes) expect((await ping(node.handler, session)).status).toBe(404);
    expect(b.closes.map((e) => e.reason)).toEqual(['session-deleted']);
    expect([...a.closes, ...c.closes]).toEqual([]);
  });

  test("a fresh GET on B relays the standalone stream homed on A (primed with A's newest id)", async () => {
    const { nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const home = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await home.next();
    a.server.notifyListChanged('tools');
    const before = await home.message();
    // B's GET takes the connection over; A still stores and sends (it is the home).
    const relayed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    expect((await relayed.next())?.id).toBe(before?._eventId);
    expect(await home.next()).toBeUndefined();
    a.server.notifyListChanged('prompts');
    const next = await relayed.message();
    expect(next?.method).toBe('notifications/prompts/list_changed');
    await relayed.cancel();
  });
});

describe('two kinds of stopping', () => {
  test('close() of one instance ends its streams and handlers (shutdown); the session goes on elsewhere', async () => {
    const { nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await stream.next();
    const started = a.started();
    const call = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V }),
    );
    const signal = await started;
    await a.handler.close();
    expect(await aborted(signal, 100)).toMatchObject({ type: 'shutdown' });
    expect((await call).status).toBe(503);
    expect(await stream.next()).toBeUndefined();
    expect((await ping(b.handler, session)).status).toBe(200);
    // The standalone stream finds a new home.
    const moved = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, '0-0', { version: V })),
    );
    b.server.notifyListChanged('tools');
    expect((await moved.message())?.method).toBe('notifications/tools/list_changed');
    await moved.cancel();
    expect(nodes.flatMap((node) => node.closes)).toEqual([]);
  });

  test('the relaying instance shutting down is a disconnect for the holder (its grace, then disconnect)', async () => {
    const { nodes } = startCluster(3, { disconnectGraceMs: 100 });
    running = nodes;
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count: 1000, ms: 5 }, true), session, {
          version: V,
        }),
      ),
    );
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    );
    await relayed.until((m) => m.method === 'notifications/progress');
    await b.handler.close();
    await relayed.rest();
    expect(await aborted(a.signals[0] as AbortSignal, 2000)).toMatchObject({ type: 'disconnect' });
  });

  test('an orphaned stream (its holder stopped before the answer) replays and ends with the instance-lost error, stored once', async () => {
    const { world, nodes } = cluster();
    const [a, b, c] = nodes;
    const session = await openSession(a.handler, V);
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count: 1000, ms: 5 }, true), session, {
          version: V,
          id: 'call-1',
        }),
      ),
    );
    const one = await first.until((m) => m.method === 'notifications/progress');
    await a.handler.close();
    await first.rest();
    const replayed = await new SseReader(
      await b.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    ).rest();
    const end = replayed.at(-1);
    expect(end).toMatchObject({
      id: 'call-1',
      error: { code: -32603, data: { reason: 'instance-lost' } },
    });
    expect(replayed.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
    const again = await new SseReader(
      await c.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    ).rest();
    expect(again).toEqual(replayed);
    const lost = world.events.messages(session).filter((m) => m.includes('instance-lost'));
    expect(lost).toHaveLength(1);
  });

  test('closeAll on one instance ends every session on every instance, each reported once', async () => {
    const { nodes } = cluster();
    const [a, b, c] = nodes;
    const one = await openSession(a.handler, V);
    const two = await openSession(b.handler, V);
    const stream = new SseReader(
      await c.handler.fetch(legacyGetRequest(one, undefined, { version: V })),
    );
    await stream.next();
    await a.instance.sessions.closeAll('session-deleted');
    expect(await stream.next()).toBeUndefined();
    expect(a.closes.map((e) => e.sessionId).sort()).toEqual([one, two].sort());
    expect([...b.closes, ...c.closes]).toEqual([]);
    for (const node of nodes) expect((await ping(node.handler, two)).status).toBe(404);
  });
});

describe('storage unreachable', () => {
  test('a StoreUnavailableError is 503 with Retry-After, for every legacy entry point', async () => {
    const { world, nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    world.down = true;
    const answers = [
      await ping(b.handler, session),
      await b.handler.fetch(
        legacyRequest('initialize', {
          protocolVersion: V,
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        }),
      ),
      await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
      await b.handler.fetch(legacyDeleteRequest(session, { version: V })),
      await b.handler.fetch(
        postRequest([{ jsonrpc: '2.0', id: 1, method: 'ping' }], session, {
          version: '2025-03-26',
        }),
      ),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('2');
      const body = await answer.json();
      expect(body.error).toMatchObject({ code: -32000, message: 'Session storage is unavailable' });
    }
    world.down = false;
    expect((await ping(b.handler, session)).status).toBe(200);
  });
});
