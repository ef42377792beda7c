/**
 * The Redis README's cluster.mjs ("Running several instances"), as installed from the tarballs
 * (`@edge-mcp/redis` with its node-redis), against a real redis-server: three plain Node
 * processes, then a Node, a Deno and a Bun one, share a session (its state, a cancel POSTed to
 * another instance than the one running the call, a DELETE that ends it everywhere).
 */
import {
  initialize,
  LEGACY,
  legacy,
  legacyDelete,
  notification,
  readAnswer,
  until,
} from '@edge-mcp/test-kit';
import {
  bunBinary,
  denoBinary,
  freePort,
  type RedisServer,
  startRedis,
} from '@edge-mcp/test-kit/node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { PACKAGE_DIR } from '../src/paths.ts';
import { type ServerProcess, startServer } from '../src/server-process.ts';

const V = { version: LEGACY };

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

/** How each runtime runs cluster.mjs (the README's command lines). */
const COMMANDS: Record<string, () => [string, string[]]> = {
  node: () => [process.execPath, ['cluster.mjs']],
  deno: () => [denoBinary(PACKAGE_DIR), ['run', '--allow-net', '--allow-env', 'cluster.mjs']],
  bun: () => [bunBinary(PACKAGE_DIR), ['cluster.mjs']],
};

interface Instance {
  server: ServerProcess;
  port: number;
  url: string;
}

async function start(runtime: string): Promise<Instance> {
  const port = await freePort();
  const [binary, args] = (COMMANDS[runtime] as () => [string, string[]])();
  const server = await startServer(
    binary,
    args,
    inject('app'),
    { PORT: String(port), REDIS_URL: redis.url },
    (line) => line.startsWith('instance '),
  );
  running.push(server);
  const url = `http://127.0.0.1:${port}/mcp`;
  expect(await server.line((l) => l.startsWith('instance '), 'the start line')).toMatch(
    new RegExp(`^instance [0-9a-z]{10} on ${url.replaceAll('.', '\\.')}$`),
  );
  return { server, port, url };
}

describe.each([
  ['three Node processes', ['node', 'node', 'node']],
  ['Node, Deno and Bun', ['node', 'deno', 'bun']],
])('cluster.mjs from the Redis README: %s on one Redis', (_name, runtimes) => {
  test('one session: its state on every instance, a cancel and a DELETE reach the instance concerned', async () => {
    const [a, b, c] = (await Promise.all(runtimes.map(start))) as [Instance, Instance, Instance];
    const { session } = await initialize(a.url, LEGACY);
    const texts: string[] = [];
    for (const to of [c, a, b]) {
      const answer = await readAnswer(
        await fetch(to.url, legacy('tools/call', { name: 'count', arguments: {} }, session, V)),
      );
      texts.push(answer.message.result.content[0].text);
    }
    expect(texts).toEqual([
      `call 1 of this session, answered on port ${c.port}`,
      `call 2 of this session, answered on port ${a.port}`,
      `call 3 of this session, answered on port ${b.port}`,
    ]);

    // A call running on A, cancelled through B (sent until the call is there to cancel).
    let settled = false;
    const sleeping = fetch(
      a.url,
      legacy('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
        ...V,
        id: 'to-cancel',
      }),
    ).finally(() => {
      settled = true;
    });
    const cancelled = async () => {
      if (settled) return true;
      const cancel = await fetch(
        b.url,
        notification('notifications/cancelled', { requestId: 'to-cancel' }, session, V),
      );
      expect(cancel.status).toBe(202);
      return false;
    };
    await until(cancelled, 'the call on A to end after a cancel sent to B', 10_000, 100);
    await sleeping;
    const logged = await a.server.line((l) => l.includes('"id":"to-cancel"'), 'the cancelled call');
    expect(JSON.parse(logged)).toMatchObject({ outcome: 'cancelled', reason: 'client-cancel' });
    expect(JSON.parse(logged).ms).toBeLessThan(30_000);

    expect((await fetch(c.url, legacyDelete(session as string, V))).status).toBe(200);
    for (const to of [a, b]) {
      const ping = await fetch(to.url, legacy('ping', undefined, session, V));
      expect(ping.status).toBe(404);
    }
  });
});
