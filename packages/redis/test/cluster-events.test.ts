/**
 * What only Redis shows of server-wide events across instances: a
 * subscription made on another instance than the standalone stream's home reaches the home
 * (`stale`), so resource updates find it. The fan-out every cluster does runs in
 * cluster-scenarios.test.ts.
 */
import {
  legacyGetRequest,
  legacyRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { until, useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

test('a subscription made on A reaches the GET stream homed on B; an update raised on C arrives there', async () => {
  const [a, b, c] = (await startNodes(redis().url)) as [Node, Node, Node];
  const session = await openSession(a.handler, V);
  const get = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
  );
  await get.next();
  // B's replica predates the subscription: the write tells B (its home) to read the record.
  const subscribed = await readAnswer(
    await a.handler.fetch(
      legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
    ),
  );
  expect(subscribed.message.result).toEqual({});
  await until(() => b.cluster.sessions.peek(session)?.isSubscribed('test://watched'), 'B sees it');
  c.server.notifyResourceUpdated('test://other');
  c.server.notifyResourceUpdated('test://watched');
  expect(await get.message()).toMatchObject({
    method: 'notifications/resources/updated',
    params: { uri: 'test://watched' },
  });
  await get.cancel();
});

test('a standalone stream taken over from a home that shut down starts with a catch-up: every list, then each subscribed resource', async () => {
  const [a, b] = (await startNodes(redis().url, { count: 2 })) as [Node, Node];
  const session = await openSession(a.handler, V);
  const get = new SseReader(
    await a.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
  );
  const priming = await get.next();
  expect(priming?.id).toBeDefined();
  await readAnswer(
    await a.handler.fetch(
      legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
    ),
  );
  // A lets the stream go when it shuts down; what is raised until the client is back on B
  // reaches no stream.
  await a.stop();
  await get.rest().catch(() => []);
  b.server.notifyListChanged('tools');
  b.server.notifyResourceUpdated('test://watched');
  const resumed = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, priming?.id, { version: V })),
  );
  // The lists this server announces changes of (tools, prompts and resources).
  const lists = ['tools', 'prompts', 'resources'];
  const notes = await resumed.messages(lists.length + 1);
  expect(notes.map((m) => m.method)).toEqual([
    ...lists.map((kind) => `notifications/${kind}/list_changed`),
    'notifications/resources/updated',
  ]);
  expect(notes.at(-1)?.params).toEqual({ uri: 'test://watched' });
  // Each is stored: a later resume replays them.
  const again = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, priming?.id, { version: V })),
  );
  expect((await again.messages(notes.length)).map((m) => m._eventId)).toEqual(
    notes.map((m) => m._eventId),
  );
  await again.cancel();
  await resumed.cancel().catch(() => {});
});
