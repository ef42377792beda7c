/**
 * One legacy session served by a Node instance and a Deno or Bun instance sharing one Redis (the
 * package unchanged on each runtime): state written on one is read on the other, a cancel on Node
 * aborts the call running on the other runtime, and when that instance is SIGKILLed mid-call the
 * client resumes on Node: every stored event once, then the `instance-lost` error.
 */
import { join } from 'node:path';
import {
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { startChild } from '@edge-mcp/test-kit/node';
import { describe, expect, test } from 'vitest';
import { namespace, until, useRedis } from './helpers.ts';
import { PACKAGE_DIR, RUNTIMES } from './support/child.ts';
import { startNode } from './support/handlers.ts';

/** The fixture under `command`, in this package, with `env` (the test kit's `startChild`). */
const start = (command: string, args: string[], env: Record<string, string>) =>
  startChild(command, args, { cwd: PACKAGE_DIR, env });

const FIXTURE = join(import.meta.dirname, 'fixtures', 'handler-child.ts');
const V = '2025-11-25';
const redis = useRedis();

function tool(name: string, args: Record<string, unknown> = {}) {
  return { name, arguments: args, _meta: { progressToken: 'p' } };
}

describe.each(RUNTIMES)('a session across Node and %s', (runtime, command) => {
  test('state, a cancel, and the other instance SIGKILLed mid-call', async () => {
    const ns = namespace();
    const node = await startNode(redis().url, ns);
    const [binary, args] = command(FIXTURE);
    const child = start(binary, args, { REDIS_URL: redis().url, REDIS_NAMESPACE: ns });
    const [, tag, reported, port] = (await child.line('ready ')).split(' ');
    expect(reported).toBe(runtime);
    const other = { fetch: (request: Request) => fetch(`http://127.0.0.1:${port}/mcp`, request) };
    const session = await openSession(node.handler, V);
    const count = async (to: { fetch(r: Request): Promise<Response> }) =>
      (
        await readAnswer(
          await to.fetch(legacyRequest('tools/call', tool('count'), session, { version: V })),
        )
      ).message.result.content[0].text;
    expect(await count(other)).toBe(`1 on ${runtime}`);
    expect(await count(node.handler)).toBe('2');
    expect(await count(other)).toBe(`3 on ${runtime}`);
    // A cancel POSTed to Node aborts the call running on the other runtime.
    const sleeping = other.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V, id: 9 }),
    );
    await until(async () => {
      await node.handler.fetch(
        notificationRequest('notifications/cancelled', { requestId: 9 }, session, { version: V }),
      );
      return Promise.race([sleeping.then(() => true), new Promise((r) => setTimeout(r, 100))]);
    }, 'the cancelled call ends');
    // A call on the other runtime, SIGKILLed after its first events.
    const first = new SseReader(
      await other.fetch(
        legacyRequest('tools/call', tool('drip', { count: 1000, ms: 20 }), session, {
          version: V,
          id: 'call-1',
        }),
      ),
    );
    const one = await first.until((m) => m.method === 'notifications/progress');
    expect(one._eventId).toMatch(new RegExp(`^${tag}\\.\\d+-\\d+$`));
    await first.until((m) => m.params?.progress === 3);
    expect(child.stderr()).not.toContain('error');
    child.child.kill('SIGKILL');
    await child.exited;
    const resumed = await new SseReader(
      await node.handler.fetch(legacyGetRequest(session, one._eventId, { version: V })),
    ).rest();
    const progress = resumed.slice(0, -1).map((m) => m.params.progress);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual(Array.from({ length: progress.length }, (_, i) => i + 2));
    expect(resumed.at(-1)).toMatchObject({
      id: 'call-1',
      error: { code: -32603, data: { reason: 'instance-lost' } },
    });
    // The session goes on, on Node.
    expect(await count(node.handler)).toBe('4');
  });
});
