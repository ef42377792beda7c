/**
 * Server-wide events across instances on Redis (design §3.6, §4.6): `notifyListChanged()` and
 * `notifyResourceUpdated()` raised on one instance reach the listen streams and legacy GET
 * streams of every other, once, without loops; a subscription made on another instance than the
 * standalone stream's home reaches the home (`stale`), so resource updates find it.
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { redisBackend } from '../src/backend.ts';
import { closeAfter, namespace, until, useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

async function listen(node: Node, id: string) {
  const reader = new SseReader(
    await node.handler.fetch(
      modernRequest(
        'subscriptions/listen',
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ['test://watched'],
          },
        },
        { id },
      ),
    ),
  );
  expect((await reader.message())?.method).toBe('notifications/subscriptions/acknowledged');
  return reader;
}

test('notifyListChanged on A reaches listen streams and legacy GET streams on B and C, once each', async () => {
  const [a, b, c] = (await startNodes(redis().url)) as [Node, Node, Node];
  const listenB = await listen(b, 'listen-b');
  const listenC = await listen(c, 'listen-c');
  const session = await openSession(b.handler, V);
  const get = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
  );
  await get.next();
  const published = a.cluster.stats().published;
  a.server.notifyListChanged('tools');
  expect((await listenB.message())?.method).toBe('notifications/tools/list_changed');
  expect((await listenC.message())?.method).toBe('notifications/tools/list_changed');
  expect((await get.message())?.method).toBe('notifications/tools/list_changed');
  c.server.notifyListChanged('prompts');
  // The next event of each stream is the second change: the first came once.
  expect((await listenB.message())?.method).toBe('notifications/prompts/list_changed');
  expect((await listenC.message())?.method).toBe('notifications/prompts/list_changed');
  expect((await get.message())?.method).toBe('notifications/prompts/list_changed');
  // One broadcast from A; nothing sent back by the receivers.
  expect(a.cluster.stats().published - published).toBe(1);
  // A registration changes only its own instance's lists.
  const added = b.server.tool('extra', {}, () => 'x');
  expect((await listenB.message())?.method).toBe('notifications/tools/list_changed');
  added.remove();
  for (const reader of [listenB, listenC, get]) await reader.cancel();
});

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

test('a handler with the bus and no legacy sessions still fans out to its listen streams', async () => {
  const ns = namespace();
  const make = async () => {
    const cluster = closeAfter(await redisBackend({ url: redis().url, namespace: ns }));
    const server = new McpServer({ name: 'modern', version: '1' });
    server.tool('t', {}, () => 't');
    const handler = createMcpHandler(server, { legacy: false, cluster: cluster.bus });
    closeAfter({ close: () => handler.close() });
    return { server, handler };
  };
  const a = await make();
  const b = await make();
  const reader = new SseReader(
    await b.handler.fetch(
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ),
  );
  await reader.message();
  a.server.notifyListChanged('tools');
  expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
  await reader.cancel();
});
