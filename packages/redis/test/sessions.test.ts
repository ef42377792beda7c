/**
 * Sessions on Redis (`RedisSessionStore` under the core's `SessionManager`): records
 * written field by field from several instances, the cluster-wide cap with eviction of an idle session, idle expiry without stranded activity,
 * tombstones, and replicas reconciled by the heartbeat when a `closed` message was missed.
 */
import {
  legacyGetRequest,
  legacyRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { sessionScripts } from '../src/scripts/sessions.ts';
import { until, useRedis } from './helpers.ts';
import { aborted, type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

function call(node: Node, session: string, method: string, params: Record<string, unknown> = {}) {
  return node.handler.fetch(legacyRequest(method, params, session, { version: V }));
}

async function stateOf(node: Node, session: string) {
  await call(node, session, 'ping');
  const live = node.cluster.sessions.peek(session);
  return {
    level: live?.logLevel,
    subscribed: live?.isSubscribed('test://watched'),
    state: live && Object.fromEntries(live.state),
  };
}

describe('records', () => {
  test('writes of different fields from two instances at once both land', async () => {
    const [a, b, c] = (await startNodes(redis().url)) as [Node, Node, Node];
    const session = await openSession(a.handler, V);
    // Both replicas exist before the writes, so each writes from a known version.
    await call(b, session, 'ping');
    const answers = await Promise.all([
      call(a, session, 'logging/setLevel', { level: 'warning' }),
      call(b, session, 'resources/subscribe', { uri: 'test://watched' }),
      call(a, session, 'tools/call', { name: 'count', arguments: {} }),
    ]);
    for (const answer of answers) expect(answer.status).toBe(200);
    for (const node of [a, b, c])
      expect(await stateOf(node, session)).toEqual({
        level: 'warning',
        subscribed: true,
        state: { n: 1 },
      });
  });

  test('a replica revalidates with one version check; a record changed elsewhere is reloaded', async () => {
    const [a, b] = (await startNodes(redis().url, { count: 2 })) as [Node, Node];
    const session = await openSession(a.handler, V);
    await call(b, session, 'ping');
    const replica = b.cluster.sessions.peek(session);
    await call(a, session, 'logging/setLevel', { level: 'error' });
    await call(b, session, 'ping');
    // The same object, refreshed in place.
    expect(b.cluster.sessions.peek(session)).toBe(replica);
    expect(replica?.logLevel).toBe('error');
  });
});

describe('replicas', () => {
  test('at most maxReplicas idle ones are cached; pinned ones stay; dropped ones are rebuilt', async () => {
    const [a] = (await startNodes(redis().url, { count: 1, redis: { maxReplicas: 2 } })) as [Node];
    const pinned = await openSession(a.handler, V);
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(pinned, undefined, { version: V })),
    );
    await stream.next();
    const others = [
      await openSession(a.handler, V),
      await openSession(a.handler, V),
      await openSession(a.handler, V),
    ];
    expect(a.cluster.stats().replicas).toBeLessThanOrEqual(2);
    expect(a.cluster.sessions.peek(pinned)).toBeDefined();
    for (const session of others) {
      const answer = await readAnswer(
        await call(a, session, 'tools/call', { name: 'count', arguments: {} }),
      );
      expect(answer.message.result.content[0].text).toBe('1');
    }
    for (const session of others) expect((await stateOf(a, session)).state).toEqual({ n: 1 });
    await stream.cancel();
  });
});

describe('the cluster-wide cap', () => {
  test('busy sessions anywhere refuse a new one (503 Retry-After); an idle one is evicted, reported once', async () => {
    const [a, b, c] = (await startNodes(redis().url, {
      redis: { maxSessions: 2, heartbeatMs: 200 },
    })) as [Node, Node, Node];
    const one = await openSession(a.handler, V);
    const two = await openSession(b.handler, V);
    const streams = [
      new SseReader(await a.handler.fetch(legacyGetRequest(one, undefined, { version: V }))),
      new SseReader(await b.handler.fetch(legacyGetRequest(two, undefined, { version: V }))),
    ];
    for (const stream of streams) await stream.next();
    const refused = await c.handler.fetch(
      legacyRequest('initialize', {
        protocolVersion: V,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // The first session goes idle (once its instance has seen the stream end and stopped
    // renewing it as busy); from then on an initialize evicts it. Until then each one is refused
    // and evicts nothing.
    await streams[0]?.cancel();
    const three = await until(
      () => openSession(c.handler, V).catch(() => false),
      'an idle session to make room',
    );
    expect(three).toBeTypeOf('string');
    expect(c.closes.map((e) => [e.sessionId, e.reason])).toEqual([[one, 'session-evicted']]);
    expect([...a.closes, ...b.closes]).toEqual([]);
    expect(c.handler.stats().evicted).toBe(1);
    expect((await call(a, one, 'ping')).status).toBe(404);
    expect((await call(a, two, 'ping')).status).toBe(200);
    expect(await c.cluster.clusterStats()).toEqual({ sessions: 2, instances: 3 });
    await streams[1]?.cancel();
  });
});

describe('idle expiry', () => {
  test('an idle session expires within idle + 2 heartbeats, once in the cluster; a busy one does not', async () => {
    const [a, b, c] = (await startNodes(redis().url, {
      redis: { idleTimeoutMs: 600, heartbeatMs: 200 },
    })) as [Node, Node, Node];
    const idle = await openSession(a.handler, V);
    const busy = await openSession(b.handler, V);
    const started = b.started();
    const call = b.handler.fetch(
      legacyRequest('tools/call', { name: 'sleep', arguments: { ms: 2000 } }, busy, {
        version: V,
      }),
    );
    const signal = await started;
    const opened = Date.now();
    const all = [a, b, c];
    await until(() => all.some((node) => node.closes.length > 0), 'the idle session ends', 3000);
    const elapsed = Date.now() - opened;
    expect(elapsed).toBeLessThan(600 + 2 * 220 + 300);
    const closes = all.flatMap((node) => node.closes);
    expect(closes.map((e) => [e.sessionId, e.reason])).toEqual([[idle, 'session-expired']]);
    expect(all.reduce((sum, node) => sum + node.cluster.sessions.reaped, 0)).toBe(1);
    // The busy one outlives its idle timeout several times over.
    expect((await call).status).toBe(200);
    expect(signal.aborted).toBe(false);
    expect(
      (await readAnswer(await b.handler.fetch(legacyRequest('ping', {}, busy, { version: V }))))
        .status,
    ).toBe(200);
    expect((await a.handler.fetch(legacyRequest('ping', {}, idle, { version: V }))).status).toBe(
      404,
    );
  });

  test('a session whose only activity was on a partitioned instance expires (nothing stranded)', async () => {
    const [a, b] = (await startNodes(redis().url, {
      count: 2,
      redis: { idleTimeoutMs: 400, heartbeatMs: 200 },
    })) as [Node, Node];
    const session = await openSession(a.handler, V);
    const started = a.started();
    void a.handler.fetch(
      legacyRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
        version: V,
      }),
    );
    const signal = await started;
    // A stops its heartbeat (as a SIGKILLed or partitioned instance would); its call runs on.
    await a.context.instance.stop();
    const cut = Date.now();
    await until(() => b.closes.length > 0, 'B sweeps the session', 3000);
    expect(Date.now() - cut).toBeLessThan(400 + 3 * 220 + 300);
    expect(b.closes.map((e) => e.reason)).toEqual(['session-expired']);
    // A still hears of it: its call ends with the session.
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-expired' });
  });
});

describe('reconciliation', () => {
  test('a replica whose session ended without a message reaching it is released by the heartbeat', async () => {
    const [a, b] = (await startNodes(redis().url, {
      count: 2,
      redis: { heartbeatMs: 200 },
    })) as [Node, Node];
    const session = await openSession(a.handler, V);
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await stream.next();
    const started = a.started();
    void a.handler.fetch(
      legacyRequest('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
        version: V,
      }),
    );
    const signal = await started;
    // Ended while A heard nothing: the session keys deleted behind its back, a tombstone left.
    const { connection, keys, instance } = b.context;
    await connection.script(
      sessionScripts(keys).close,
      [keys.index(session)],
      [keys.namespace, session, 'session-deleted', instance.tag, '1'],
    );
    expect(await aborted(signal, 1500)).toMatchObject({ type: 'session-deleted' });
    expect(await stream.next()).toBeUndefined();
    expect(a.closes).toEqual([]);
  });
});
