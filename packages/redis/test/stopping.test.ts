/**
 * Two kinds of stopping (design §4.9): an instance that shuts down ends what it holds (reason
 * `shutdown`) and leaves the sessions to the others, whose clients resume there (an unanswered
 * request stream ends with the `instance-lost` error, stored once); `closeAll()` ends every
 * session on every instance, reported once each.
 */
import { legacyGetRequest, legacyRequest, openSession, SseReader } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { until, useRedis } from './helpers.ts';
import { aborted, type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

function ping(node: Node, session: string) {
  return node.handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

function drip(node: Node, session: string, count: number, ms: number, id: string | number = 1) {
  return node.handler.fetch(
    legacyRequest(
      'tools/call',
      { name: 'drip', arguments: { count, ms }, _meta: { progressToken: 'p' } },
      session,
      { version: V, id },
    ),
  );
}

describe('an instance shutting down', () => {
  test('ends its streams and calls (shutdown) at once; the session goes on elsewhere, its GET stream moves', async () => {
    const [a, b] = (await startNodes(redis().url)) as [Node, Node, Node];
    const session = await openSession(a.handler, V);
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await stream.next();
    const started = a.started();
    const call = a.handler.fetch(
      legacyRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
        version: V,
      }),
    );
    const signal = await started;
    const t0 = Date.now();
    await a.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await aborted(signal, 100)).toMatchObject({ type: 'shutdown' });
    expect((await call).status).toBe(503);
    expect(await stream.next()).toBeUndefined();
    expect((await ping(b, session)).status).toBe(200);
    // The standalone stream's home was A, which is gone: B becomes its home.
    const moved = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, '0-0', { version: V })),
    );
    b.server.notifyListChanged('tools');
    expect((await moved.message())?.method).toBe('notifications/tools/list_changed');
    await moved.cancel();
    expect([...a.closes, ...b.closes]).toEqual([]);
  });

  test('the relaying instance shutting down is a disconnect for the holder (grace, then disconnect)', async () => {
    const [a, b] = (await startNodes(redis().url, {
      count: 2,
      options: { disconnectGraceMs: 100 },
    })) as [Node, Node];
    const session = await openSession(a.handler, V);
    const first = new SseReader(await drip(a, session, 1000, 5));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = new SseReader(
      await b.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    );
    await relayed.until((m) => m.method === 'notifications/progress');
    await b.stop();
    await relayed.rest();
    expect(await aborted(a.signals[0] as AbortSignal, 2000)).toMatchObject({ type: 'disconnect' });
  });

  test('an orphaned stream (its holder stopped before the answer) replays and ends with instance-lost, stored once', async () => {
    const [a, b, c] = (await startNodes(redis().url)) as [Node, Node, Node];
    const session = await openSession(a.handler, V);
    const first = new SseReader(await drip(a, session, 1000, 5, 'call-1'));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await a.stop();
    await first.rest();
    const replayed = await new SseReader(
      await b.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    ).rest();
    expect(replayed.at(-1)).toMatchObject({
      id: 'call-1',
      error: { code: -32603, data: { reason: 'instance-lost' } },
    });
    expect(replayed.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
    const again = await new SseReader(
      await c.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    ).rest();
    expect(again).toEqual(replayed);
    const { connection, keys } = c.context;
    const stored = (await connection.command(['XRANGE', keys.events(session), '-', '+'])) as Array<
      [string, string[]]
    >;
    const lost = stored.filter(([, fields]) => fields.some((f) => f.includes('instance-lost')));
    expect(lost).toHaveLength(1);
  });
});

describe('closeAll', () => {
  test('ends every session on every instance, each reported once, by the calling instance', async () => {
    const all = (await startNodes(redis().url)) as [Node, Node, Node];
    const [a, b, c] = all;
    const one = await openSession(a.handler, V);
    const two = await openSession(b.handler, V);
    const stream = new SseReader(
      await c.handler.fetch(legacyGetRequest(one, undefined, { version: V })),
    );
    await stream.next();
    const started = b.started();
    const call = b.handler.fetch(
      legacyRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, two, {
        version: V,
      }),
    );
    const signal = await started;
    expect(await a.cluster.closeAll('session-deleted')).toBe(2);
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await call).status).toBe(404);
    expect(a.closes.map((e) => e.sessionId).sort()).toEqual([one, two].sort());
    expect([...b.closes, ...c.closes]).toEqual([]);
    for (const node of all) {
      expect((await ping(node, one)).status).toBe(404);
      expect((await ping(node, two)).status).toBe(404);
    }
    await until(() => all.every((node) => node.cluster.stats().replicas === 0), 'replicas gone');
    expect(await a.cluster.clusterStats()).toEqual({ sessions: 0, instances: 3 });
  });
});
