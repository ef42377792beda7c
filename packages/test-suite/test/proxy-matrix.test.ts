/**
 * The proxy matrix (issue 24, item 3): real nginx and HAProxy on loopback in front of the server
 * on Node and on Bun, as users configure them: nginx from docs/deploying/nginx.conf and with its
 * defaults (`proxy_buffering on`), HAProxy from docs/deploying/haproxy.cfg with idle limits
 * shorter than a quiet stream. In every cell: events arrive one by one, the client's drop cancels
 * its call (`disconnect`) and the Host/Origin guard judges what the client addressed
 * (`MCP_TRUST_PROXY=1`). Keep-alives carry a quiet stream past the idle limit; a server without
 * them gets its quiet stream cut, and the client resumes it with Last-Event-ID, losing nothing.
 */
import {
  freePort,
  haproxyDocumented,
  nginxDefaults,
  nginxDocumented,
  type ReverseProxy,
  startHaproxy,
  startNginx,
} from '@edge-mcp/test-kit/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  cutStreamResumes,
  dropCancels,
  eventsOneByOne,
  quietStreamSurvives,
  whoamiFrom,
} from '../src/proxy-checks.ts';
import { type ClusterInstance, startInstance } from '../src/targets/cluster.ts';

/** The proxies' idle limit in the test, and the server's keep-alive interval: 60 s and 15 s scaled. */
const IDLE = '1s';
const KEEP_ALIVE_MS = 250;

type ProxyKind = 'nginx (docs)' | 'nginx (defaults)' | 'haproxy (docs)';

const PROXIES: Record<ProxyKind, (port: number, upstream: number) => Promise<ReverseProxy>> = {
  'nginx (docs)': (port, upstream) => startNginx(nginxDocumented(port, upstream), port),
  'nginx (defaults)': (port, upstream) => startNginx(nginxDefaults(port, upstream, IDLE), port),
  'haproxy (docs)': (port, upstream) =>
    startHaproxy(haproxyDocumented(port, [upstream], IDLE), port),
};

const SERVER_ENV = {
  FIXTURE: 'suite',
  MCP_TRUST_PROXY: '1',
  ALLOWED_HOSTS: 'mcp.example.test',
};

const RUNTIMES = ['node', 'bun'] as const;
const started: Array<{ stop(): Promise<void> }> = [];

async function server(
  runtime: (typeof RUNTIMES)[number],
  keepAliveMs: number,
): Promise<ClusterInstance> {
  const instance = await startInstance(runtime, 0, await freePort(), {
    ...SERVER_ENV,
    KEEP_ALIVE_MS: String(keepAliveMs),
  });
  started.push(instance);
  return instance;
}

async function proxy(kind: ProxyKind, upstream: ClusterInstance): Promise<ReverseProxy> {
  const started_ = await PROXIES[kind](await freePort(), Number(new URL(upstream.url).port));
  started.push(started_);
  return started_;
}

afterAll(async () => {
  await Promise.all(started.map((item) => item.stop()));
});

describe.each(RUNTIMES)('behind real proxies, %s', (runtime) => {
  describe.each(Object.keys(PROXIES) as ProxyKind[])('%s', (kind) => {
    let upstream: ClusterInstance;
    let front: ReverseProxy;
    beforeAll(async () => {
      upstream = await server(runtime, KEEP_ALIVE_MS);
      front = await proxy(kind, upstream);
    }, 60_000);

    test('each event reaches the client before the server writes the next (a POST answer, a GET stream)', async () => {
      expect(await eventsOneByOne(front.url)).toEqual([1, 2, 3, 4]);
    });

    test('keep-alive comments carry a quiet GET stream past the idle limit', async () => {
      // Twice the idle limit of comments: a proxy that cut idle streams would have cut this one.
      await quietStreamSurvives(front.url, 8);
    });

    test('a client that leaves at the proxy cancels its call with reason disconnect', async () => {
      expect(await dropCancels(front.url, upstream.url)).toMatchObject({
        outcome: 'cancelled',
        reason: 'disconnect',
      });
    });

    test('the guard judges the host the client addressed; the client address is the forwarded one; rebinding is refused', async () => {
      const ok = await whoamiFrom(front.url, '127.0.0.2', 'mcp.example.test');
      expect(ok.status).toBe(200);
      if (kind === 'nginx (defaults)') {
        // A bare proxy_pass forwards nothing: the server sees the proxy (no false 403 either).
        expect(ok.seen).toMatchObject({ clientAddress: '127.0.0.1' });
        return;
      }
      expect(ok.seen).toMatchObject({ clientAddress: '127.0.0.2', host: 'mcp.example.test' });
      expect((await whoamiFrom(front.url, '127.0.0.2', 'rebind.attacker.test')).status).toBe(403);
      const foreign = await whoamiFrom(
        front.url,
        '127.0.0.2',
        'mcp.example.test',
        'http://rebind.attacker.test',
      );
      expect(foreign.status).toBe(403);
      const own = await whoamiFrom(
        front.url,
        '127.0.0.2',
        'mcp.example.test',
        'http://mcp.example.test',
      );
      expect(own.status).toBe(200);
    });
  });

  describe.each(['nginx (defaults)', 'haproxy (docs)'] as ProxyKind[])(
    '%s, server without keep-alives',
    (kind) => {
      let front: ReverseProxy;
      beforeAll(async () => {
        front = await proxy(kind, await server(runtime, 0));
      }, 60_000);

      test('the proxy cuts the quiet stream; the client resumes with Last-Event-ID and loses no event', async () => {
        const ids = await cutStreamResumes(front.url);
        expect(ids).toHaveLength(4);
        expect(new Set(ids).size).toBe(4);
        const streamOf = (id: string) => id.slice(0, id.lastIndexOf('-'));
        const seqOf = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1));
        expect(new Set(ids.map(streamOf)).size).toBe(1);
        expect(ids.map(seqOf)).toEqual([...ids.map(seqOf)].sort((a, b) => a - b));
      });
    },
  );
});

test("HAProxy's own answers (docs/deploying/mcp-50x.http) are JSON-RPC errors an MCP client reads", async () => {
  const port = await freePort();
  // No instance behind it: HAProxy answers for it.
  const front = await startHaproxy(haproxyDocumented(port, [await freePort()], IDLE), port);
  started.push(front);
  const response = await fetch(`${front.url}/mcp`, { method: 'POST', body: '{}' });
  expect(response.status).toBe(503);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('retry-after')).toBe('1');
  expect(await response.json()).toMatchObject({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32603, data: { reason: 'no-instance' } },
  });
});
