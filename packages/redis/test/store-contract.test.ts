/**
 * The session-store contract on Redis (a real redis-server): a "store" is a namespace, a restart
 * or a second instance is another `redisBackend()` on it, and the instances share the records.
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { runCases, type SessionStoreTarget, sessionStoreContract } from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { redisBackend } from '../src/backend.ts';
import { namespace, useRedis } from './helpers.ts';

const redis = useRedis();

/** The two tools the contract calls. */
function contractServer(): McpServer {
  const server = new McpServer({ name: 'store-contract', version: '1.0.0' });
  server.tool('remember', {}, (args, ctx) => {
    ctx.session?.state.set('value', (args as { value?: unknown }).value);
    return 'kept';
  });
  server.tool('recall', {}, (_args, ctx) => String(ctx.session?.state.get('value') ?? ''));
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
