import {
  LEGACY,
  legacy,
  legacyDelete,
  legacyGet,
  modern,
  notification,
  openSession,
  readAnswer,
  SseReader,
  until,
  within,
} from '@edge-mcp/test-kit';
import {
  freePort,
  nginxDocumented,
  type RedisCluster,
  type RedisServer,
  startNginx,
  startRedis,
  startRedisCluster,
} from '@edge-mcp/test-kit/node';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import {
  killStartedApps,
  ROOT,
  SERVER,
  type StartedApp,
  settledGroup,
  startApp,
} from '../src/app-process.ts';
import { whoamiFrom } from '../src/proxy-checks.ts';

afterEach(killStartedApps);

import { running } from '../src/suite/wait.ts';

describe('pnpm start passes SIGTERM on: the runtime shuts down gracefully and exits 0', () => {
  test.each([
    ['pnpm start at the root (Node)', ROOT, 'start'],
    ['pnpm start in apps/server (Node)', SERVER, 'start'],
    ['pnpm start:deno in apps/server', SERVER, 'start:deno'],
    ['pnpm start:bun in apps/server', SERVER, 'start:bun'],
  ])('%s', async (_, cwd, script) => {
    const { pnpm, url, output, exited } = await startApp(cwd, script);
    const call = fetch(
      `${url}/mcp`,
      modern('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, { id: 'at-sigterm' }),
    ).then((response) => response.status);
    await running(url, call);

    process.kill(pnpm.pid as number, 'SIGTERM'); // pnpm only, as `docker stop` does
    expect(await within(exited, 'pnpm to exit', 30_000), output()).toEqual({
      code: 0,
      signal: null,
    });
    expect(await call).toBe(503);
    expect(output()).toContain('edge-mcp example shutting down (1 in flight');
    expect(output()).toContain('edge-mcp example stopped');
    // Without REDIS_URL: memory, as always.
    expect(output()).not.toContain('Redis');
    const line = output()
      .split('\n')
      .find((l) => l.includes('"id":"at-sigterm"'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ outcome: 'cancelled', reason: 'shutdown' });
    expect(await settledGroup(pnpm, 5_000)).toEqual([]);
  });
});

describe('MCP_DRAIN_MS: SIGTERM drains before it stops (a rolling deploy)', () => {
  test.each([
    ['Node', 'start'],
    ['Deno', 'start:deno'],
    ['Bun', 'start:bun'],
  ])(
    '%s: /readyz turns 503 at once, new requests get 503 with Retry-After, the 2 s call in flight finishes, then it exits 0',
    async (_, script) => {
      const { pnpm, url, output, exited } = await startApp(SERVER, script, {
        MCP_DRAIN_MS: '5000',
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const call = fetch(
        `${url}/mcp`,
        modern('tools/call', { name: 'sleep', arguments: { ms: 2_000 } }, { id: 'drained' }),
      ).then(readAnswer);
      await running(url, call);
      process.kill(pnpm.pid as number, 'SIGTERM');
      await until(
        () => output().includes('draining for up to 5000 ms'),
        'the drain to start',
        30_000,
      );
      expect(output()).toContain('shutting down (1 in flight');
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const refused = await fetch(
        `${url}/mcp`,
        modern('tools/call', { name: 'echo', arguments: { text: 'late' } }),
      );
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const answer = await call;
      expect(answer.status).toBe(200);
      expect(answer.message.result.content[0].text).toBe('slept 2000 ms');
      expect(await within(exited, 'pnpm to exit', 30_000), output()).toEqual({
        code: 0,
        signal: null,
      });
      const line = output()
        .split('\n')
        .find((l) => l.includes('"id":"drained"'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ outcome: 'ok' });
    },
  );
});

describe('behind nginx, with MCP_TRUST_PROXY (docs/deploying/nginx.conf)', () => {
  test('pnpm start answers a client that addressed mcp.example.test, whoami shows its address, a rebinding Host is refused', async () => {
    const app = await startApp(SERVER, 'start', {
      MCP_TRUST_PROXY: '1',
      ALLOWED_HOSTS: 'mcp.example.test',
    });
    const port = await freePort();
    const nginx = await startNginx(nginxDocumented(port, Number(new URL(app.url).port)), port);
    try {
      const seen = await whoamiFrom(nginx.url, '127.0.0.3', 'mcp.example.test');
      expect(seen.status).toBe(200);
      expect(seen.seen).toMatchObject({ clientAddress: '127.0.0.3', host: 'mcp.example.test' });
      expect((await whoamiFrom(nginx.url, '127.0.0.3', 'rebind.attacker.test')).status).toBe(403);
    } finally {
      await nginx.stop();
    }
  });
});

describe('with REDIS_URL, the apps are instances of one server', () => {
  let redis: RedisServer | undefined;
  afterAll(async () => {
    await redis?.stop();
  });

  test('the app on Node twice, on Deno and on Bun, on one redis-server: a session opened on one is served by every other; SIGTERM leaves it to the rest', async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url, REDIS_NAMESPACE: 'apps-start' };
    const apps = await Promise.all(
      ['start', 'start', 'start:deno', 'start:bun'].map((script) => startApp(SERVER, script, env)),
    );
    for (const app of apps)
      expect(app.output()).toContain(`sessions in Redis at ${redis.url} (instance `);
    const [first] = apps as [StartedApp];
    const session = await openSession(`${first.url}/mcp`, LEGACY);
    // A running sum kept in the session: each app adds to what the others wrote.
    const sums: number[] = [];
    for (const app of [...apps.slice(1), first]) {
      const answer = await readAnswer(
        await fetch(
          `${app.url}/mcp`,
          legacy('tools/call', { name: 'tally', arguments: { add: 1 } }, session, {
            version: LEGACY,
          }),
        ),
      );
      sums.push(answer.message.result.structuredContent.sum);
    }
    expect(sums).toEqual([1, 2, 3, 4]);
    // The first app stops (a rolling deploy): the session goes on on the others.
    process.kill(first.pnpm.pid as number, 'SIGTERM');
    expect(await within(first.exited, 'pnpm to exit', 30_000), first.output()).toEqual({
      code: 0,
      signal: null,
    });
    const after = await readAnswer(
      await fetch(
        `${apps[1]?.url}/mcp`,
        legacy('tools/call', { name: 'tally', arguments: { add: 1 } }, session, {
          version: LEGACY,
        }),
      ),
    );
    expect(after.message.result.structuredContent).toEqual({ sum: 5 });
    for (const app of apps.slice(1)) {
      process.kill(app.pnpm.pid as number, 'SIGTERM');
      expect(await within(app.exited, 'pnpm to exit', 30_000), app.output()).toEqual({
        code: 0,
        signal: null,
      });
    }
    expect(first.output()).not.toContain('session-close');
  });
});

describe('with REDIS_CLUSTER_NODES, the apps are instances of one server on a Redis Cluster', () => {
  let cluster: RedisCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  test('pnpm start on Node, Deno and Bun: a session opened on one is served by the others, a cancel sent to one aborts the call on another, DELETE on one ends the stream held by another', async () => {
    cluster = await startRedisCluster();
    const env = { REDIS_CLUSTER_NODES: cluster.urls.join(','), REDIS_NAMESPACE: 'apps-cluster' };
    const apps = await Promise.all(
      ['start', 'start:deno', 'start:bun'].map((script) => startApp(SERVER, script, env)),
    );
    for (const app of apps) expect(app.output()).toContain('sessions in Redis at the cluster of');
    const [a, b, c] = apps as [StartedApp, StartedApp, StartedApp];
    const session = await openSession(`${a.url}/mcp`, LEGACY);
    const V = { version: LEGACY };
    const sums: number[] = [];
    for (const app of [b, c, a]) {
      const answer = await readAnswer(
        await fetch(
          `${app.url}/mcp`,
          legacy('tools/call', { name: 'tally', arguments: { add: 1 } }, session, V),
        ),
      );
      sums.push(answer.message.result.structuredContent.sum);
    }
    expect(sums).toEqual([1, 2, 3]);
    // A call running on A (Node), cancelled through B (Deno): A logs it cancelled by the client.
    const call = fetch(
      `${a.url}/mcp`,
      legacy('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, session, {
        ...V,
        id: 'cluster-sleep',
      }),
    );
    await running(a.url, call);
    const cancel = await fetch(
      `${b.url}/mcp`,
      notification('notifications/cancelled', { requestId: 'cluster-sleep' }, session, V),
    );
    expect(cancel.status).toBe(202);
    await (await call).text();
    await until(
      () => a.output().includes('"id":"cluster-sleep"') || undefined,
      "A's log line of the cancelled call",
      10_000,
      25,
    );
    const line = a
      .output()
      .split('\n')
      .find((l) => l.includes('"id":"cluster-sleep"'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      outcome: 'cancelled',
      reason: 'client-cancel',
    });
    // The GET stream held by C (Bun) ends when the session is DELETEd on A.
    const get = await fetch(`${c.url}/mcp`, legacyGet(session, undefined, V));
    expect(get.status).toBe(200);
    const reader = new SseReader(get);
    await reader.next(); // priming: the stream is open on C
    expect((await fetch(`${a.url}/mcp`, legacyDelete(session, V))).status).toBe(200);
    await within(reader.rest(), "C's GET stream to end", 10_000);
    const ping = await fetch(`${b.url}/mcp`, legacy('ping', undefined, session, V));
    expect(ping.status).toBe(404);
    for (const app of apps) {
      process.kill(app.pnpm.pid as number, 'SIGTERM');
      expect(await within(app.exited, 'pnpm to exit', 30_000), app.output()).toEqual({
        code: 0,
        signal: null,
      });
    }
  });
});
