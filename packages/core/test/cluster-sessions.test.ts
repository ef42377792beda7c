/**
 * What only the memory cluster double shows of the core's cluster seam (issue 15):
 * the answer waiting for a slow write, ids naming their instance, and every legacy entry point
 * answering 503 while the storage is away. The scenarios every cluster passes (cancels, client
 * responses, relayed streams, session ends, stopping) are the test kit's, run by
 * cluster-scenarios.test.ts.
 */
import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  openSession,
  postRequest,
  readAnswer,
} from '@edge-mcp/test-kit';
import { afterEach, describe, expect, test } from 'vitest';
import type { McpHandler } from '../src/index.ts';
import { type Node, startCluster } from './support/cluster-setup.ts';

const V = '2025-11-25';

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

function ping(handler: McpHandler, session: string) {
  return handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

function tool(name: string, args: Record<string, unknown> = {}, progress = false) {
  return progress
    ? { name, arguments: args, _meta: { progressToken: 'p' } }
    : { name, arguments: args };
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
    const answers = [
      await ping(b.handler, session),
      await b.handler.fetch(
        legacyRequest('initialize', {
          protocolVersion: V,
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        }),
      ),
      await b.handler.fetch(legacyGetRequest(session, undefined, { version: V })),
      await b.handler.fetch(legacyDeleteRequest(session, { version: V })),
      await b.handler.fetch(
        postRequest([{ jsonrpc: '2.0', id: 1, method: 'ping' }], session, {
          version: '2025-03-26',
        }),
      ),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('2');
      const body = await answer.json();
      expect(body.error).toMatchObject({ code: -32000, message: 'Session storage is unavailable' });
    }
    world.down = false;
    expect((await ping(b.handler, session)).status).toBe(200);
  });
});
