/**
 * Round trips per legacy request: a `tools/call` on a session whose state did not
 * change costs exactly one Redis round trip (one EVALSHA), counted by the connection and by
 * Redis itself (`INFO commandstats`); the other requests cost what the design's table says.
 */
import {
  legacyRequest,
  notificationRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

/** Redis's own count of EVALSHA calls (read on a connection the stats do not count: INFO). */
async function evalshaCalls(node: Node): Promise<number> {
  const info = String(await node.context.connection.command(['INFO', 'commandstats']));
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

/** Round trips (the connection's count) and EVALSHAs (Redis's) of `run`. */
async function measure(node: Node, run: () => Promise<unknown>) {
  const evalsha = await evalshaCalls(node);
  const before = node.cluster.stats().roundTrips;
  await run();
  const roundTrips = node.cluster.stats().roundTrips - before;
  // The INFO of evalshaCalls is a round trip of its own.
  return { roundTrips, evalsha: (await evalshaCalls(node)) - evalsha };
}

test('round trips per legacy request, on an instance that holds the replica', async () => {
  // No heartbeat in the measured windows.
  const [a, b] = (await startNodes(redis().url, { count: 2, redis: { heartbeatMs: 60_000 } })) as [
    Node,
    Node,
  ];
  const call = (name: string, args: Record<string, unknown> = {}, progress = false, on = a) =>
    on.handler.fetch(
      legacyRequest(
        'tools/call',
        { name, arguments: args, ...(progress ? { _meta: { progressToken: 'p' } } : {}) },
        session,
        { version: V },
      ),
    );
  let session = '';
  const opened = await measure(a, async () => {
    session = await openSession(a.handler, V);
  });
  // initialize (create) + notifications/initialized (touch, write)
  expect(opened).toEqual({ roundTrips: 3, evalsha: 3 });
  const calls = 20;
  const plain = await measure(a, async () => {
    for (let i = 0; i < calls; i++) {
      const answer = await readAnswer(await call('echo'));
      expect(answer.message.result.content[0].text).toBe('echo');
    }
  });
  expect(plain).toEqual({ roundTrips: calls, evalsha: calls });
  const written = await measure(a, async () => readAnswer(await call('count')));
  expect(written).toEqual({ roundTrips: 2, evalsha: 2 });
  // An SSE answer: the touch, then one append per message (2 progress, the result).
  const streamed = await measure(a, async () =>
    new SseReader(await call('drip', { count: 2, ms: 1 }, true)).rest(),
  );
  expect(streamed).toEqual({ roundTrips: 1 + 3, evalsha: 1 + 3 });
  const level = await measure(a, async () =>
    a.handler.fetch(legacyRequest('logging/setLevel', { level: 'info' }, session, { version: V })),
  );
  expect(level).toEqual({ roundTrips: 2, evalsha: 2 });
  const cancel = await measure(a, async () =>
    a.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 'none' }, session, {
        version: V,
      }),
    ),
  );
  // touch, PUBLISH
  expect(cancel.roundTrips).toBe(2);
  // Elsewhere: the same one round trip brings the record along (no replica yet, or a stale one).
  const first = await measure(b, async () => readAnswer(await call('echo', {}, false, b)));
  await readAnswer(await call('count'));
  const stale = await measure(b, async () => readAnswer(await call('echo', {}, false, b)));
  expect([first.roundTrips, stale.roundTrips]).toEqual([1, 1]);
  expect(b.cluster.sessions.peek(session)?.state.get('n')).toBe(2);
  console.log(
    `round trips: initialize+initialized ${opened.roundTrips}, tools/call ${plain.roundTrips / calls}, ` +
      `state write ${written.roundTrips}, SSE with 3 messages ${streamed.roundTrips}, ` +
      `setLevel ${level.roundTrips}, cancel ${cancel.roundTrips}`,
  );
});
