/**
 * Rate limits shared across instances (issue 22): two handlers on one redis-server take from the
 * same buckets, atomically, so a principal's burst is its burst across the deployment.
 */
import { createMcpHandler, type McpHandler, McpServer } from '@edge-mcp/core';
import { modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { backendOf } from '../src/backend.ts';
import { context, namespace, useRedis } from './helpers.ts';

const redis = useRedis();

function handler(store: ReturnType<typeof backendOf>['rateLimits']): McpHandler {
  const server = new McpServer({ name: 'limits', version: '1' });
  server.tool('echo', {}, () => 'echo');
  return createMcpHandler(server, {
    rateLimit: { perPrincipal: { perSecond: 0.001, burst: 4 }, store },
    auth: {
      verify: (token) => ({ principal: token, scopes: [] }),
      resource: 'http://127.0.0.1:8787/mcp',
      authorizationServers: ['http://127.0.0.1:9'],
    },
  });
}

const call = async (on: McpHandler, who: string) =>
  (
    await readAnswer(
      await on.fetch(
        modernRequest(
          'tools/call',
          { name: 'echo' },
          { headers: { authorization: `Bearer ${who}` } },
        ),
      ),
    )
  ).status;

test("two instances share a principal's bucket: its burst is counted across both, atomically", async () => {
  const ns = namespace();
  const [a, b] = await Promise.all([
    context(redis().url, { namespace: ns }),
    context(redis().url, { namespace: ns }),
  ]);
  const one = handler(backendOf(a).rateLimits);
  const two = handler(backendOf(b).rateLimits);
  // Eight calls at once, four on each instance: exactly four get through.
  const statuses = await Promise.all(
    Array.from({ length: 8 }, (_, i) => call(i % 2 === 0 ? one : two, 'mallory')),
  );
  expect(statuses.filter((status) => status === 200)).toHaveLength(4);
  expect(statuses.filter((status) => status === 429)).toHaveLength(4);
  // Another principal has its own bucket, on either instance.
  expect(await call(two, 'alice')).toBe(200);
  // A bucket is a hash that expires once it would be full again.
  const ttl = (await a.connection.command(['PTTL', a.keys.rateBucket('mallory')])) as number;
  expect(ttl).toBeGreaterThan(3_000_000);
  await Promise.all([one.close(), two.close()]);
});
