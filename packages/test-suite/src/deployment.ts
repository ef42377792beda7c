/**
 * The deployment of the rolling-deploy test (issue 24, item 4): Node instances of the suite's
 * server on one redis-server behind HAProxy (docs/deploying/haproxy.cfg, its health check on
 * `/readyz`), each replaceable by SIGTERM (a drain of `DRAIN_MS`) or SIGKILL (a crash).
 */
import {
  freePort,
  haproxyDocumented,
  type RedisServer,
  type ReverseProxy,
  startHaproxy,
  startRedis,
} from '@edge-mcp/test-kit/node';
import { CLUSTER_ENV, type ClusterInstance, startInstance } from './targets/cluster.ts';

export interface DeploymentOptions {
  instances: number;
  /** Each instance's drain on SIGTERM (`DRAIN_MS`). */
  drainMs: number;
}

export interface Deployment {
  readonly url: string;
  readonly redis: RedisServer;
  readonly proxy: ReverseProxy;
  readonly instances: ClusterInstance[];
  /** Stops instance `i` (SIGTERM: a drain; SIGKILL: a crash) and starts its replacement. */
  replace(i: number, how: 'SIGTERM' | 'SIGKILL'): Promise<{ code: number | null; ms: number }>;
  stop(): Promise<void>;
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const redis = await startRedis();
  const env = {
    ...CLUSTER_ENV,
    FIXTURE: 'suite',
    REDIS_URL: redis.url,
    REDIS_NAMESPACE: `deploy-${Math.random().toString(36).slice(2, 8)}`,
    DRAIN_MS: String(options.drainMs),
    KEEP_ALIVE_MS: '250',
    MCP_TRUST_PROXY: '1',
    ALLOWED_HOSTS: 'mcp.example.test',
  };
  const ports = await Promise.all(Array.from({ length: options.instances }, () => freePort()));
  const instances = await Promise.all(ports.map((port, i) => startInstance('node', i, port, env)));
  const proxyPort = await freePort();
  const proxy = await startHaproxy(haproxyDocumented(proxyPort, ports, '1s'), proxyPort);
  return {
    url: proxy.url,
    redis,
    proxy,
    instances,
    async replace(i, how) {
      const old = instances[i] as ClusterInstance;
      const started = performance.now();
      old.kill(how, false);
      const { code } = await old.exited;
      const ms = performance.now() - started;
      instances[i] = await startInstance('node', i, ports[i] as number, env);
      return { code, ms };
    },
    async stop() {
      await Promise.all(instances.map((instance) => instance.stop()));
      await proxy.stop();
      await redis.stop();
    },
  };
}
