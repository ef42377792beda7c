/**
 * What only the memory cluster double shows of server-wide events across instances (issue 15):
 * each raise is sent to every other instance once (the double counts messages), and
 * a registration changes only its own instance's lists. The fan-out every cluster does runs in
 * cluster-scenarios.test.ts.
 */
import { legacyGetRequest, openSession, SseReader } from '@edge-mcp/test-kit';
import { listen } from '@edge-mcp/test-kit/cluster';
import { afterEach, expect, test } from 'vitest';
import { type Node, startCluster } from './support/cluster-setup.ts';

const V = '2025-11-25';

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

test('each raise is sent to every other instance once, and a registration changes only its own instance’s lists', async () => {
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
