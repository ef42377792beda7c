/**
 * The targets of the measures that run the example server itself (apps/server, as `pnpm start`
 * runs it) rather than a bench entry: two instances on one Redis (cross-instance cancel), and
 * the paths to one instance, direct and through nginx and HAProxy as docs/deploying configures
 * them (SSE event latency). They need no spec: their measures start what they need.
 */
import { missingBinary } from './lib/paths.ts';
import { unavailableRedis } from './lib/services.ts';

export type ProxyKind = 'nginx' | 'haproxy';

export interface ExampleTarget {
  id: string;
  label: string;
  runtime: 'node';
  /** Proxy paths: the direct path, measured in the same process and interleaved with them. */
  baseline?: string;
  /** The reverse proxy in front of the example; none for the direct path. */
  proxy?: ProxyKind;
  /** Cross-cancel: one `redis-server` (default) or a sharded Redis Cluster. */
  redis?: 'primary' | 'cluster';
  unavailable?: () => string | undefined;
}

const BINARIES: Record<ProxyKind, string> = {
  nginx: process.env.NGINX || '/usr/sbin/nginx',
  haproxy: process.env.HAPROXY || '/usr/sbin/haproxy',
};

/** Why `proxy` cannot run here (its binary is missing), or undefined. */
const unavailableProxy = (proxy: ProxyKind) =>
  missingBinary(BINARIES[proxy], `Debian's ${proxy}; scripts/system-deps.mjs installs it`);

export const CROSS_CANCEL_TARGETS: ExampleTarget[] = [
  {
    id: 'node/edge-mcp-example/redis-cross-instance',
    label: 'example server × 2 on one Redis: call on A, cancel on B',
    runtime: 'node',
    unavailable: unavailableRedis,
  },
  {
    id: 'node/edge-mcp-example/redis-cluster-cross-instance',
    label: 'example server × 2 on a Redis Cluster: call on A, cancel on B',
    runtime: 'node',
    redis: 'cluster',
    unavailable: unavailableRedis,
  },
];

export const PROXY_SSE_TARGETS: ExampleTarget[] = [
  {
    id: 'node/edge-mcp-example/direct',
    label: 'direct',
    runtime: 'node',
  },
  {
    id: 'node/edge-mcp-example/nginx',
    label: 'nginx (docs/deploying/nginx.conf)',
    runtime: 'node',
    baseline: 'node/edge-mcp-example/direct',
    proxy: 'nginx',
    unavailable: () => unavailableProxy('nginx'),
  },
  {
    id: 'node/edge-mcp-example/haproxy',
    label: 'HAProxy (docs/deploying/haproxy.cfg)',
    runtime: 'node',
    baseline: 'node/edge-mcp-example/direct',
    proxy: 'haproxy',
    unavailable: () => unavailableProxy('haproxy'),
  },
];
