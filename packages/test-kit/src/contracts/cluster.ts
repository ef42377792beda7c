/**
 * The scenarios every cluster passes (legacy sessions served by several instances over one shared
 * store and bus): any instance serves a session, cancels and client responses reach the instance
 * that holds the request, streams held elsewhere are relayed (every event once, in order), the
 * standalone stream keeps one home, DELETE and closeAll end everything once, one instance
 * stopping ends only what it holds, and list and resource notifications reach every instance.
 * The core runs them on its memory cluster double, `@edge-mcp/redis` on a real redis-server.
 * They register vitest tests (Node only); the instances serve `addClusterTools`' tools.
 */
import { describe, expect, test } from 'vitest';
import { readAnswer } from '../answer.ts';
import { legacyRequest } from '../legacy.ts';
import { modernRequest } from '../modern.ts';
import { openSession } from '../session.ts';
import { SseReader } from '../sse-reader.ts';
import { aborted } from '../wait.ts';
import {
  type ClusterNode,
  type ClusterTarget,
  call,
  get,
  listen,
  ping,
  type Three,
  tool,
  V,
} from './cluster-kit.ts';
import { sessionScenarios } from './cluster-sessions.ts';

export {
  addClusterTools,
  addTaskTools,
  type ClusterNode,
  type ClusterTarget,
  everyEntryPoint,
  expectStorageUnavailable,
  listen,
  ping,
  type TaskToolNode,
  tool,
  V,
} from './cluster-kit.ts';

/** Registers the scenarios as vitest tests against `target`. */
export function clusterScenarios(target: ClusterTarget): void {
  const three = (grace = 5000) =>
    target.start(3, { disconnectGraceMs: grace }) as Promise<
      [ClusterNode, ClusterNode, ClusterNode]
    >;
  describe('legacy sessions across instances', () => sessionScenarios(target, three));
  describe('stopping', () => stoppingScenarios(target, three));
  describe('notifications across instances', () => notificationScenarios(target, three));
}

function stoppingScenarios(target: ClusterTarget, three: Three): void {
  test('one instance stopping ends its streams and calls (shutdown); the session goes on elsewhere, its GET stream moves', async () => {
    const nodes = await three();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const stream = await get(a, session);
    await stream.next();
    const started = a.started();
    const running = call(a, session, 'sleep', { ms: 30_000 });
    const signal = await started;
    await a.stop();
    expect(await aborted(signal, 100)).toMatchObject({ type: 'shutdown' });
    expect((await running).status).toBe(503);
    expect(await stream.next()).toBeUndefined();
    expect((await ping(b, session)).status).toBe(200);
    // The standalone stream's home was A, which is gone: B becomes its home.
    const moved = await get(b, session, '0-0');
    b.server.notifyListChanged('tools');
    expect((await moved.message())?.method).toBe('notifications/tools/list_changed');
    await moved.cancel();
    expect(nodes.flatMap((node) => node.closes)).toEqual([]);
  });

  test('the relaying instance shutting down is a disconnect for the holder (its grace, then disconnect)', async () => {
    const [a, b] = await three(100);
    const session = await openSession(a.handler, V);
    const first = new SseReader(await call(a, session, 'drip', { count: 1000, ms: 5 }, true));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = await get(b, session, one._eventId);
    await relayed.until((m) => m.method === 'notifications/progress');
    await b.stop();
    await relayed.rest();
    expect(await aborted(a.signals[0] as AbortSignal, 2000)).toMatchObject({ type: 'disconnect' });
  });

  test('an orphaned stream (its holder stopped before the answer) replays and ends with the instance-lost error, stored once', async () => {
    const [a, b, c] = await three();
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
    await a.stop();
    await first.rest();
    const replayed = await (await get(b, session, one._eventId)).rest();
    expect(replayed.at(-1)).toMatchObject({
      id: 'call-1',
      error: { code: -32603, data: { reason: 'instance-lost' } },
    });
    expect(replayed.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
    const again = await (await get(c, session, one._eventId)).rest();
    expect(again).toEqual(replayed);
    const lost = (await target.storedMessages(session)).filter((m) => m.includes('instance-lost'));
    expect(lost).toHaveLength(1);
  });

  test('closeAll on one instance ends every session on every instance, each reported once, by it', async () => {
    const nodes = await three();
    const [a, b, c] = nodes;
    const one = await openSession(a.handler, V);
    const two = await openSession(b.handler, V);
    const stream = await get(c, one);
    await stream.next();
    const started = b.started();
    const running = call(b, two, 'sleep', { ms: 30_000 });
    const signal = await started;
    await target.closeAll(a, 'session-deleted');
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await running).status).toBe(404);
    expect(a.closes.map((e) => e.sessionId).sort()).toEqual([one, two].sort());
    expect([...b.closes, ...c.closes]).toEqual([]);
    for (const node of nodes) expect((await ping(node, two)).status).toBe(404);
  });
}

function notificationScenarios(target: ClusterTarget, three: Three): void {
  test('notifyListChanged on A reaches listen streams and legacy GET streams on B and C, once each', async () => {
    const [a, b, c] = await three();
    const listenB = await listen(b, 'listen-b');
    const listenC = await listen(c, 'listen-c');
    const session = await openSession(b.handler, V);
    const stream = await get(b, session);
    await stream.next();
    a.server.notifyListChanged('tools');
    // The next event of each stream is the one change, then the next one raised (no duplicate).
    for (const reader of [listenB, listenC, stream])
      expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
    c.server.notifyListChanged('prompts');
    for (const reader of [listenB, listenC, stream])
      expect((await reader.message())?.method).toBe('notifications/prompts/list_changed');
    for (const reader of [listenB, listenC, stream]) await reader.cancel();
  });

  test('notifyResourceUpdated on C reaches the subscribed session on its GET stream on B, and listen streams', async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const subscribed = await readAnswer(
      await a.handler.fetch(
        legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
      ),
    );
    expect(subscribed.message.result).toEqual({});
    const listenA = await listen(a, 'listen-a');
    const stream = await get(b, session);
    await stream.next();
    c.server.notifyResourceUpdated('test://other');
    c.server.notifyResourceUpdated('test://watched');
    const updated = {
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched' },
    };
    expect(await stream.message()).toMatchObject(updated);
    expect(await listenA.message()).toMatchObject(updated);
    await stream.cancel();
    await listenA.cancel();
  });

  test('instances with the bus and no legacy sessions still fan out to their listen streams', async () => {
    const [a, b] = (await target.start(2, { legacy: false })) as [ClusterNode, ClusterNode];
    const reader = new SseReader(
      await b.handler.fetch(
        modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      ),
    );
    await reader.message();
    a.server.notifyListChanged('tools');
    expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
    await reader.cancel();
  });
}
