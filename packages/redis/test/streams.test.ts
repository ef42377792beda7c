/**
 * What only Redis shows of legacy sessions across instances: stream ids naming the
 * instance that holds the replica, and a cancel broadcast before its request registered. The
 * scenarios every cluster passes run in cluster-scenarios.test.ts.
 */
import { legacyRequest, notificationRequest, openSession, readAnswer } from '@edge-mcp/test-kit';
import { tool, V } from '@edge-mcp/test-kit/cluster';
import { describe, expect, test } from 'vitest';
import { until, useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const redis = useRedis();

function nodes(count = 3, grace = 5000) {
  return startNodes(redis().url, { count, options: { disconnectGraceMs: grace } }) as Promise<
    [Node, Node, Node]
  >;
}

describe('legacy sessions across instances on Redis', () => {
  test('any instance serves the session; state written on one is seen on the next', async () => {
    const [a, b, c] = await nodes();
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b, b]) {
      const answer = await readAnswer(
        await node.handler.fetch(
          legacyRequest('tools/call', tool('count'), session, { version: V }),
        ),
      );
      counts.push(answer.message.result.content[0].text);
    }
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
    expect(b.cluster.sessions.peek(session)?.ids?.stream()).toMatch(
      new RegExp(`^${b.cluster.instance}\\.\\d+$`),
    );
  });

  test('a cancel broadcast before its request registered is applied when it does', async () => {
    const [a, b] = await nodes();
    const session = await openSession(a.handler, V);
    const received = a.cluster.stats().received;
    await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 'early' }, session, {
        version: V,
      }),
    );
    // The broadcast has reached A (and is remembered there) before the request registers.
    await until(() => a.cluster.stats().received > received, 'the cancel to reach A');
    const answer = await readAnswer(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, {
          version: V,
          id: 'early',
        }),
      ),
    );
    expect(a.signals[0]?.reason).toMatchObject({ type: 'client-cancel' });
    expect(answer.status).toBe(200);
  });
});
