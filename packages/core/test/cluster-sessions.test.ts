/**
 * What only the memory cluster double shows of the core's cluster seam (issue 15):
 * the answer waiting for a slow write, ids naming their instance, and every legacy entry point
 * answering 503 while the storage is away. The scenarios every cluster passes (cancels, client
 * responses, relayed streams, session ends, stopping) are the test kit's, run by
 * cluster-scenarios.test.ts.
 */
import { legacyRequest, openSession, readAnswer } from '@edge-mcp/test-kit';
import {
  everyEntryPoint,
  expectStorageUnavailable,
  ping,
  tool,
  V,
} from '@edge-mcp/test-kit/cluster';
import { afterEach, describe, expect, test } from 'vitest';
import { type Node, startCluster } from './support/cluster-setup.ts';

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

function cluster() {
  const started = startCluster(3, { disconnectGraceMs: 5000 });
  running = started.nodes;
  return started;
}

describe('legacy sessions across instances (memory cluster)', () => {
  test('the answer waits for the write (a slow store); ids name the instance that made them', async () => {
    const { nodes } = cluster();
    const [a, b, c] = nodes;
    a.instance.records.writeDelayMs = 20;
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b]) {
      const answer = await readAnswer(
        await node.handler.fetch(
          legacyRequest('tools/call', tool('count'), session, { version: V }),
        ),
      );
      counts.push(answer.message.result.content[0].text);
    }
    expect(counts).toEqual(['1', '2', '3', '4']);
    // Ids name the instance that made them.
    expect(b.instance.links.ids.stream()).toMatch(/^ib\.\d+$/);
  });
});

describe('storage unreachable', () => {
  test('a StoreUnavailableError is 503 with Retry-After, for every legacy entry point', async () => {
    const { world, nodes } = cluster();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    world.down = true;
    await expectStorageUnavailable(await everyEntryPoint(b, session), '2');
    world.down = false;
    expect((await ping(b, session)).status).toBe(200);
  });
});
