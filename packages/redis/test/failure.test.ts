/**
 * Redis lost mid-run: every legacy entry point is answered 503 with Retry-After
 * while it is away (at once when it is down, within socketTimeoutMs when it hangs); handlers in
 * flight are not left hanging; reconnection is automatic; nothing written before is lost (a
 * restart with persistence keeps every session, event and field) and a change made while it was
 * away is written once it is back.
 */
import {
  legacyGetRequest,
  legacyRequest,
  openSession,
  readAnswer,
  SseReader,
  sleep,
} from '@edge-mcp/test-kit';
import { everyEntryPoint, expectStorageUnavailable, ping, V } from '@edge-mcp/test-kit/cluster';
import { describe, expect, test } from 'vitest';
import { until, useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const redis = useRedis(true);

function call(node: Node, session: string, name: string, args: Record<string, unknown> = {}) {
  return node.handler.fetch(
    legacyRequest('tools/call', { name, arguments: args, _meta: { progressToken: 'p' } }, session, {
      version: V,
    }),
  );
}

describe('Redis lost mid-run', () => {
  test('down: 503 Retry-After at once everywhere, no handler left hanging, a change made meanwhile written once it is back', async () => {
    const [a, b] = (await startNodes(redis().url, {
      count: 2,
      redis: { retryAfterSeconds: 2 },
    })) as [Node, Node];
    const session = await openSession(a.handler, V);
    await a.handler.fetch(
      legacyRequest('logging/setLevel', { level: 'error' }, session, { version: V }),
    );
    // Everything so far reaches the AOF (fsynced every second) before the crash.
    await sleep(1200);
    const started = a.started();
    const late = call(a, session, 'later', { ms: 300 });
    const dripping = new SseReader(await call(b, session, 'drip', { count: 30, ms: 20 }));
    await started;
    await redis().kill();
    await until(() => !a.cluster.available && !b.cluster.available, 'both see Redis gone');
    const t0 = Date.now();
    await expectStorageUnavailable(await everyEntryPoint(b, session), '2');
    expect(Date.now() - t0).toBeLessThan(500);
    // The handlers in flight end normally: the call's answer arrives, the stream runs to its end
    // (its events go out live, without ids, while they cannot be stored).
    expect((await readAnswer(await late)).message.result.content[0].text).toBe('late');
    const rest = await dripping.rest();
    expect(rest.at(-1)?.result.content[0].text).toBe('dripped');
    expect(a.handler.stats().inFlight + b.handler.stats().inFlight).toBe(0);
    await redis().start();
    await until(() => a.cluster.available && b.cluster.available, 'both reconnect', 5000);
    // The state written while Redis was away reached it (flushed on reconnection).
    await until(
      async () => {
        await ping(b, session);
        return b.cluster.sessions.peek(session)?.state.get('late') === true;
      },
      'the queued write',
      3000,
    );
    expect(b.cluster.sessions.peek(session)?.logLevel).toBe('error');
    expect(a.cluster.stats().reconnects).toBeGreaterThanOrEqual(1);
  });

  test('hung (SIGSTOP): requests that need it fail within socketTimeoutMs, then it recovers', async () => {
    const [a] = (await startNodes(redis().url, { count: 1 })) as [Node];
    const session = await openSession(a.handler, V);
    redis().pause();
    try {
      const t0 = Date.now();
      const answer = await ping(a, session);
      expect(answer.status).toBe(503);
      expect(Date.now() - t0).toBeLessThan(1000 + 1000);
    } finally {
      redis().resume();
    }
    await until(() => a.cluster.available, 'available again', 5000);
    expect((await ping(a, session)).status).toBe(200);
  });

  test('restarted mid-run: sessions, fields and events kept; a running call completes; streams go on', async () => {
    const [a, b, c] = (await startNodes(redis().url)) as [Node, Node, Node];
    const session = await openSession(a.handler, V);
    await a.handler.fetch(
      legacyRequest('logging/setLevel', { level: 'warning' }, session, { version: V }),
    );
    await b.handler.fetch(
      legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
    );
    const stream = new SseReader(
      await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
    );
    await stream.next();
    a.server.notifyListChanged('tools');
    const stored = await stream.message();
    const dripping = new SseReader(await call(b, session, 'drip', { count: 40, ms: 25 }));
    const first = await dripping.until((m) => m.method === 'notifications/progress');
    await redis().restart();
    await until(() => [a, b, c].every((n) => n.cluster.available), 'every instance back', 5000);
    const rest = await dripping.rest();
    expect(rest.at(-1)?.result.content[0].text).toBe('dripped');
    for (const node of [a, b, c]) {
      expect((await ping(node, session)).status).toBe(200);
      const live = node.cluster.sessions.peek(session);
      expect([live?.logLevel, live?.isSubscribed('test://watched')]).toEqual(['warning', true]);
    }
    // Events stored before the restart replay anywhere.
    const replay = await new SseReader(
      await c.handler.fetch(legacyGetRequest(session, first._eventId, { version: V })),
    ).messages(1);
    expect(replay[0]?.method).toBe('notifications/progress');
    expect((await c.cluster.eventStore?.replay(session, '0-0'))?.events[0]?.id).toBe(
      stored?._eventId,
    );
    // A change raised after the restart reaches A's stream.
    c.server.notifyListChanged('prompts');
    expect((await stream.message())?.method).toBe('notifications/prompts/list_changed');
    await stream.cancel();
  });
});
