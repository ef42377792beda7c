/**
 * Server-wide events across instances (issue 15, design §3.6): the `cluster` option's bus
 * carries `notifyListChanged()` and `notifyResourceUpdated()` from the instance that raised them
 * to the listen streams and legacy GET streams of every other, once, without loops.
 */
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { afterEach, expect, test } from 'vitest';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { type Node, startCluster } from './support/cluster-setup.ts';
import { MemoryCluster } from './support/memory-cluster.ts';

const V = '2025-11-25';

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

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
  const { world, nodes } = startCluster();
  running = nodes;
  const [a, b, c] = nodes;
  const listenB = await listen(b, 'listen-b');
  const listenC = await listen(c, 'listen-c');
  const session = await openSession(b.handler, V);
  const get = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
  );
  await get.next();
  a.server.notifyListChanged('tools');
  // The next event of each stream is the one change, then the next one raised (no duplicate).
  expect((await listenB.message())?.method).toBe('notifications/tools/list_changed');
  expect((await listenC.message())?.method).toBe('notifications/tools/list_changed');
  expect((await get.message())?.method).toBe('notifications/tools/list_changed');
  c.server.notifyListChanged('prompts');
  expect((await listenB.message())?.method).toBe('notifications/prompts/list_changed');
  expect((await listenC.message())?.method).toBe('notifications/prompts/list_changed');
  expect((await get.message())?.method).toBe('notifications/prompts/list_changed');
  // Two raises, each sent to the two other instances; nothing sent back.
  expect(world.sent.get('list-changed')).toBe(4);
  // A registration changes only its own instance's lists.
  const added = b.server.tool('extra', {}, () => 'x');
  expect((await listenB.message())?.method).toBe('notifications/tools/list_changed');
  expect(world.sent.get('list-changed')).toBe(4);
  added.remove();
  for (const reader of [listenB, listenC, get]) await reader.cancel();
});

test('notifyResourceUpdated on C reaches the subscribed legacy session homed on B and listen streams', async () => {
  const { nodes } = startCluster();
  running = nodes;
  const [a, b, c] = nodes;
  const session = await openSession(a.handler, V);
  const subscribed = await readAnswer(
    await a.handler.fetch(
      legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
    ),
  );
  expect(subscribed.message.result).toEqual({});
  const listenA = await listen(a, 'listen-a');
  const get = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
  );
  await get.next();
  c.server.notifyResourceUpdated('test://other');
  c.server.notifyResourceUpdated('test://watched');
  expect(await get.message()).toMatchObject({
    method: 'notifications/resources/updated',
    params: { uri: 'test://watched' },
  });
  expect(await listenA.message()).toMatchObject({
    method: 'notifications/resources/updated',
    params: { uri: 'test://watched' },
  });
  await get.cancel();
  await listenA.cancel();
});

test('a handler with a cluster bus and no legacy sessions still fans out to its listen streams', async () => {
  const world = new MemoryCluster();
  const make = (tag: string) => {
    const s = new McpServer({ name: tag, version: '1' });
    s.tool('t', {}, () => 't');
    const instance = world.instance(tag);
    return {
      server: s,
      handler: createMcpHandler(s, { legacy: false, cluster: instance.cluster }),
    };
  };
  const a = make('ma');
  const b = make('mb');
  const reader = new SseReader(
    await b.handler.fetch(
      modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ),
  );
  await reader.message();
  a.server.notifyListChanged('tools');
  expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
  await reader.cancel();
  await Promise.all([a.handler.close(), b.handler.close()]);
  // A closed handler delivers nothing (its listeners are gone).
  a.server.notifyListChanged('tools');
});
