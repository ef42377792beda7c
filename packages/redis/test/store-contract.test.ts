/**
 * The store contracts on Redis (a real redis-server). Sessions: a "store" is a namespace, a
 * restart or a second instance is another `redisBackend()` on it, and the instances share the
 * records. Events and tasks: `RedisEventStore` and `RedisTaskStore` on their own.
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import {
  CONTRACT_TOOLS,
  eventStoreContract,
  runCases,
  type SessionStoreTarget,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { redisBackend } from '../src/backend.ts';
import { RedisEventStore } from '../src/event-store.ts';
import { SESSION_FIELDS } from '../src/keys.ts';
import { RedisTaskStore } from '../src/task-store.ts';
import { closeAfter, context, namespace, useRedis } from './helpers.ts';

const redis = useRedis();

/** The server of the contract: its two tools. */
function contractServer(): McpServer {
  const server = new McpServer({ name: 'store-contract', version: '1.0.0' });
  for (const [name, handler] of CONTRACT_TOOLS) server.tool(name, {}, handler);
  return server;
}

const target: SessionStoreTarget<string> = {
  shared: true,
  store: () => namespace(),
  reopen: (ns) => ns,
  async handler(ns, options) {
    const backend = await redisBackend({
      url: redis().url,
      namespace: ns,
      idleTimeoutMs: options.idleTimeoutMs,
      heartbeatMs: 100,
    });
    return createMcpHandler(contractServer(), {
      ...backend.handlerOptions(false),
      onSessionClose: (event) => options.onSessionClose(String(event.reason)),
    });
  },
};

describe('Redis sessions pass the session-store contract', () => {
  runCases(test, sessionStoreContract, target as SessionStoreTarget<unknown>);
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
