import {
  eventStoreContract,
  initializeParams,
  legacyRequest,
  openSession,
  readAnswer,
  runCases,
  type SessionStoreTarget,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { RedisEventStore } from '../src/event-store.ts';
import { SESSION_FIELDS, ShardedKeys } from '../src/keys.ts';
import { RedisTaskStore } from '../src/task-store.ts';
import { closeAfter, context, namespace, until, useRedisCluster } from './helpers.ts';
import { redisClusterScenarios, sessionStoreTarget } from './support/contracts.ts';
import { type Node, startNodes } from './support/handlers.ts';

// A node must be unreachable for 5 s before its replica takes over: a paused primary is answered
// 503 well before that (socketTimeoutMs 1 s), not failed over.
const cluster = useRedisCluster({ nodeTimeoutMs: 5_000 });
const seeds = () => cluster().urls.slice(0, 2);
const V = '2025-11-25';

describe('on a Redis Cluster, sessions pass the session-store contract', () => {
  runCases(
    test,
    sessionStoreContract,
    sessionStoreTarget(seeds, { partitions: 8 }) as SessionStoreTarget<unknown>,
  );
});

describe('on a Redis Cluster, RedisEventStore passes the event-store contract', () => {
  runCases(test, eventStoreContract, {
    keepsInfo: true,
    async store(maxEvents, sessions) {
      const { connection, keys } = await context(seeds(), { namespace: namespace() });
      for (const id of sessions)
        await connection.command(['HSET', keys.session(id), SESSION_FIELDS.version, '1']);
      return new RedisEventStore(connection, keys, {
        maxEventsPerSession: maxEvents,
        maxEventBytesPerSession: 1 << 20,
      });
    },
  });
});

describe('on a Redis Cluster, RedisTaskStore passes the task-store contract', () => {
  runCases(test, taskStoreContract, {
    async store() {
      return closeAfter(new RedisTaskStore(await context(seeds(), { namespace: namespace() })));
    },
  });
});

describe('on a Redis Cluster, the cluster scenarios', () => {
  redisClusterScenarios(seeds);
});

describe('what only a cluster has', () => {
  test('a session id names its partition, and its keys share one slot', async () => {
    const keys = new ShardedKeys('ns', 64);
    const id = keys.newSessionId();
    expect(id).toMatch(/^p[0-9a-z]{1,2}\.[0-9a-f-]{36}$/);
    const slots = await Promise.all(
      [keys.session(id), keys.events(id), keys.gone(id), keys.index(id), keys.broadcastOf(id)].map(
        async (key) =>
          (
            await cluster().cli(cluster().nodes[0]?.port as number, 'CLUSTER', 'KEYSLOT', key)
          ).trim(),
      ),
    );
    expect(new Set(slots).size).toBe(1);
    const task = keys.taskId(`s:${id}`, 'random');
    expect(ShardedKeys.partOf(task)).toBe(ShardedKeys.partOf(id));
  });
});

const auth = {
  verify: (token: string) => ({ principal: token, scopes: [] }),
  resource: 'http://127.0.0.1:8787/mcp',
  authorizationServers: ['http://127.0.0.1:9'],
};

/** `initialize` as `who` on `node`: the session id, or the refusal's status. */
async function open(node: Node, who: string): Promise<string | number> {
  const answer = await node.handler.fetch(
    legacyRequest('initialize', initializeParams(V), undefined, {
      headers: { authorization: `Bearer ${who}` },
    }),
  );
  await answer.text();
  return answer.headers.get('mcp-session-id') ?? answer.status;
}

describe('the caps on a cluster, counted in admission sets', () => {
  test.each([
    ['the principal quota', { maxSessions: 100, maxSessionsPerPrincipal: 2 }, 429],
    ['the cap', { maxSessions: 2, maxSessionsPerPrincipal: 100 }, 503],
  ] as const)(
    '%s: instances racing cannot overshoot it; an idle session is evicted, a busy one never',
    async (_, caps, refusal) => {
      // Sessions untouched for 1.5 heartbeats (3 s) are idle enough to evict.
      const nodes = await startNodes(seeds(), {
        redis: { ...caps, heartbeatMs: 2_000, partitions: 8 },
        options: { auth },
      });
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => open(nodes[i % 3] as Node, 'mallory')),
      );
      const opened = results.filter((r): r is string => typeof r === 'string');
      expect(opened).toHaveLength(2);
      expect(results.filter((r) => r === refusal)).toHaveLength(4);
      // Once they are idle, the next initialize evicts the idlest of them.
      const third = await until(
        async () => {
          const r = await open(nodes[0] as Node, 'mallory');
          return typeof r === 'string' ? r : undefined;
        },
        'an initialize that evicts an idle session',
        10_000,
        200,
      );
      const { connection, keys } = (nodes[0] as Node).context;
      const sharded = keys as ShardedKeys;
      const counted = await connection.command(
        refusal === 429
          ? ['ZCARD', sharded.principalSessions('mallory')]
          : ['ZCARD', sharded.admitted],
      );
      expect(counted).toBe(2);
      const closes = nodes.flatMap((node) => node.closes).map((event) => event.reason);
      expect(closes).toEqual(['session-evicted']);
      expect(opened.concat(third)).toHaveLength(3);
    },
  );
});

describe('a shard away', () => {
  test("its sessions get 503 with Retry-After while other shards' sessions are served", async () => {
    const [a] = await startNodes(seeds(), { count: 1, redis: { partitions: 16 } });
    if (!a) throw new Error('an instance');
    const keys = a.context.keys as ShardedKeys;
    // Sessions until two live on different primaries.
    const byPrimary = new Map<number, string>();
    while (byPrimary.size < 2) {
      const session = await openSession(a.handler, V);
      byPrimary.set((await cluster().primaryOf(keys.session(session))).port, session);
    }
    const [[awayPort, away], [, served]] = [...byPrimary] as [[number, string], [number, string]];
    const node = cluster().nodes.find((n) => n.port === awayPort);
    if (!node) throw new Error('the primary');
    const ping = (session: string) =>
      a.handler.fetch(legacyRequest('ping', {}, session, { version: V }));
    node.server.pause();
    try {
      const [refused, answered] = await Promise.all([ping(away), ping(served)]);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await readAnswer(refused)).message.error?.code).toBe(-32000);
      expect(answered.status).toBe(200);
    } finally {
      node.server.resume();
    }
    await until(async () => (await ping(away)).status === 200, 'the shard to be back', 10_000, 100);
  });
});

describe('round trips on a cluster', () => {
  test('a tools/call on a session whose state did not change costs one round trip, as on one primary', async () => {
    // No heartbeat in the measured window.
    const [a, b] = (await startNodes(seeds(), {
      count: 2,
      redis: { heartbeatMs: 60_000, partitions: 8 },
    })) as [Node, Node];
    const session = await openSession(a.handler, V);
    for (const node of [a, b]) {
      // The first call on each instance loads the scripts on the session's primary (NOSCRIPT).
      await readAnswer(
        await node.handler.fetch(
          legacyRequest('tools/call', { name: 'echo', arguments: {} }, session, { version: V }),
        ),
      );
      const before = node.cluster.stats().roundTrips;
      for (let i = 0; i < 10; i++) {
        const answer = await readAnswer(
          await node.handler.fetch(
            legacyRequest('tools/call', { name: 'echo', arguments: {} }, session, { version: V }),
          ),
        );
        expect(answer.message.result.content[0].text).toBe('echo');
      }
      expect(node.cluster.stats().roundTrips - before).toBe(10);
    }
  });
});
