/**
 * The handler owns what its Redis backend is built on (issue 23): `handlerOptions()` gives it
 * `onClose`, so `handler.close()` (what `serve()` calls on SIGTERM) closes the cluster's
 * connections once the handler has ended everything; no wrapper around the handler is needed.
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { expect, test } from 'vitest';
import { redisBackend } from '../src/backend.ts';
import { namespace, useRedis } from './helpers.ts';

const redis = useRedis();

test('handler.close() closes the cluster it was given (its connections quit), once', async () => {
  const cluster = await redisBackend({
    url: redis().url,
    namespace: namespace(),
    heartbeatMs: 500,
  });
  const handler = createMcpHandler(new McpServer({ name: 'owned', version: '1' }), {
    ...cluster.handlerOptions(),
  });
  expect(cluster.available).toBe(true);
  await handler.close();
  expect(cluster.available).toBe(false);
  // Closing it again (code that still does) is harmless.
  await cluster.close();
});
