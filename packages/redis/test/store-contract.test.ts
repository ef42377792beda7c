/**
 * The store contracts on Redis (a real redis-server). Sessions: a "store" is a namespace, a
 * restart or a second instance is another `redisBackend()` on it, and the instances share the
 * records. Events and tasks: `RedisEventStore` and `RedisTaskStore` on their own.
 */
import {
  eventStoreContract,
  runCases,
  type SessionStoreTarget,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { RedisEventStore } from '../src/event-store.ts';
import { SESSION_FIELDS } from '../src/keys.ts';
import { RedisTaskStore } from '../src/task-store.ts';
import { closeAfter, context, namespace, useRedis } from './helpers.ts';
import { sessionStoreTarget } from './support/contracts.ts';

const redis = useRedis();

describe('Redis sessions pass the session-store contract', () => {
  runCases(
    test,
    sessionStoreContract,
    sessionStoreTarget(() => redis().url) as SessionStoreTarget<unknown>,
  );
});

describe('RedisEventStore passes the event-store contract', () => {
  runCases(test, eventStoreContract, {
    keepsInfo: true,
    async store(maxEvents, sessions) {
      const { connection, keys } = await context(redis().url, { namespace: namespace() });
      // Events are kept for live sessions only: each gets a record.
      for (const id of sessions)
        await connection.command(['HSET', keys.session(id), SESSION_FIELDS.version, '1']);
      return new RedisEventStore(connection, keys, {
        maxEventsPerSession: maxEvents,
        maxEventBytesPerSession: 1 << 20,
      });
    },
  });
});

describe('RedisTaskStore passes the task-store contract', () => {
  runCases(test, taskStoreContract, {
    async store() {
      return closeAfter(new RedisTaskStore(await context(redis().url, { namespace: namespace() })));
    },
  });
});
