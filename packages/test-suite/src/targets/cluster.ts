/**
 * Several instances of the suite's server sharing one Redis (issue 15), behind a round-robin
 * proxy: one real `redis-server` on a loopback port (its own directory, AOF on so a restart keeps
 * the data), one process per runtime given, each the suite's entry with `REDIS_URL`, and
 * `startRoundRobin` in front, so consecutive requests of one session (GET streams included) land
 * on different instances. The target's URL is the proxy's; each instance stays reachable on its
 * own URL for tests that aim at one.
 */
import {
  bunBinary,
  denoBinary,
  freePort,
  type RedisCluster,
  type RedisServer,
  type RoundRobinProxy,
  startRedis,
  startRedisCluster,
  startRoundRobin,
} from '@edge-mcp/test-kit/node';
import type { FixtureKind } from '../fixture.ts';
import { NODE_CAPS } from './node.ts';
import { BUN_CAPS, DENO_CAPS } from './runtimes.ts';
import { type SpawnedTarget, spawnTarget } from './spawn.ts';
import type { LogLine, Target, TargetCaps } from './types.ts';

export type ClusterRuntime = 'node' | 'deno' | 'bun';

/** This package: the entries' working directory, where tsx, deno and bun are installed. */
const ROOT = new URL('../..', import.meta.url).pathname;

/** The request-state secret every instance shares (2026-07-28 retries land anywhere). */
const SECRET = 'edge-mcp-test-suite';

/**
 * Redis settings of every instance: a lost or hung Redis is noticed within 1 s, liveness and
 * sweeps every 500 ms (a SIGKILLed instance's liveness key lapses within 1.5 s).
 */
export const CLUSTER_ENV: Readonly<Record<string, string>> = {
  REDIS_HEARTBEAT_MS: '500',
  REDIS_SOCKET_TIMEOUT_MS: '1000',
  REDIS_CONNECT_TIMEOUT_MS: '5000',
  REDIS_LINK_TIMEOUT_MS: '1000',
  MCP_REQUEST_STATE_SECRET: SECRET,
};

const RUNTIME_CAPS: Record<ClusterRuntime, TargetCaps> = {
  node: NODE_CAPS,
  deno: DENO_CAPS,
  bun: BUN_CAPS,
};

/** What a cluster can do: sessions, process shutdown, the slowest runtime's disconnect bound. */
export function clusterCaps(runtimes: readonly ClusterRuntime[]): TargetCaps {
  return {
    sessions: true,
    shutdown: 'process',
    disconnectBoundMs: Math.max(...runtimes.map((r) => RUNTIME_CAPS[r].disconnectBoundMs)),
  };
}

export interface ClusterOptions {
  fixture?: FixtureKind;
  /** More environment for every instance (`REDIS_IDLE_MS`, `GRACE_MS`, …). */
  env?: Record<string, string>;
  /** Redis key prefix @default a fresh one per cluster */
  namespace?: string;
  /**
   * A sharded Redis Cluster (3 primaries, one replica each) instead of one primary: the instances
   * get `REDIS_CLUSTER_NODES`. @default false
   */
  sharded?: boolean;
}

export interface ClusterInstance extends SpawnedTarget {
  readonly runtime: ClusterRuntime;
  /** This instance's Redis state: its tag, whether Redis is reachable, its counters. */
  cluster(): Promise<{ instance: string; available: boolean; roundTrips: number }>;
}

export interface ClusterTarget extends Target {
  /** The one primary (a sharded target's first node: use `sharded` for the cluster). */
  readonly redis: RedisServer;
  /** The sharded Redis Cluster (`ClusterOptions.sharded`). */
  readonly sharded: RedisCluster | undefined;
  readonly proxy: RoundRobinProxy;
  /** The instances in the proxy's rotation order (`respawn(i)` replaces `instances[i]`). */
  readonly instances: ClusterInstance[];
  /** Starts instance `i` again (same runtime, port and settings) after it exited. */
  respawn(i: number): Promise<ClusterInstance>;
}

function command(runtime: ClusterRuntime): { command: string; args: string[] } {
  switch (runtime) {
    case 'node':
      return { command: process.execPath, args: ['--import', 'tsx', 'src/entries/node.ts'] };
    case 'deno':
      // As the Deno target: without --unstable-no-legacy-abort (see runtimes.ts).
      return {
        command: denoBinary(ROOT),
        args: [
          'run',
          '--allow-net',
          '--allow-env',
          '--allow-read',
          '--quiet',
          'src/entries/deno.ts',
        ],
      };
    case 'bun':
      return { command: bunBinary(ROOT), args: ['run', 'src/entries/bun.ts'] };
  }
}

export async function startInstance(
  runtime: ClusterRuntime,
  index: number,
  port: number,
  env: Record<string, string>,
): Promise<ClusterInstance> {
  const target = await spawnTarget({
    name: `${runtime}#${index}`,
    ...command(runtime),
    cwd: ROOT,
    env: { ...env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    caps: RUNTIME_CAPS[runtime],
    port,
  });
  return Object.assign(target, {
    runtime,
    cluster: async () => (await (await fetch(`${target.url}/__cluster`)).json()) as never,
  });
}

/** One Redis, one instance per entry of `runtimes`, the round-robin proxy in front. */
export async function clusterTarget(
  runtimes: readonly ClusterRuntime[],
  options: ClusterOptions = {},
): Promise<ClusterTarget> {
  const sharded = options.sharded ? await startRedisCluster() : undefined;
  const redis = sharded
    ? (sharded.nodes[0]?.server as RedisServer)
    : await startRedis({ persist: true });
  const stopRedis = () => (sharded ? sharded.stop() : redis.stop());
  const env: Record<string, string> = {
    ...CLUSTER_ENV,
    ...options.env,
    FIXTURE: options.fixture ?? 'suite',
    ...(sharded ? { REDIS_CLUSTER_NODES: sharded.urls.join(',') } : { REDIS_URL: redis.url }),
    REDIS_NAMESPACE: options.namespace ?? `suite-${Math.random().toString(36).slice(2, 8)}`,
  };
  const ports = await Promise.all(runtimes.map(() => freePort()));
  const started = await Promise.allSettled(
    runtimes.map((runtime, i) => startInstance(runtime, i, ports[i] as number, env)),
  );
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(instances.map((instance) => instance.stop()));
    await stopRedis();
    throw failed.reason;
  }
  const proxy = await startRoundRobin(instances.map((instance) => instance.url));
  const caps = clusterCaps(runtimes);
  const name = `cluster of ${runtimes.join(' + ')}${sharded ? ' on a Redis Cluster' : ''}`;
  return {
    name,
    url: proxy.url,
    mcpUrl: `${proxy.url}/mcp`,
    caps,
    redis,
    sharded,
    proxy,
    instances,
    log: async () => (await (await fetch(`${proxy.url}/__log`)).json()) as LogLine[],
    async respawn(i) {
      const old = instances[i];
      if (!old) throw new Error(`no instance ${i}`);
      await old.stop();
      const fresh = await startInstance(old.runtime, i, ports[i] as number, env);
      instances[i] = fresh;
      return fresh;
    },
    /** SIGTERM to every instance at once (each to its server process, as a supervisor does). */
    async shutdown() {
      const codes = await Promise.all(
        instances.map(async (instance) => {
          instance.kill('SIGTERM', false);
          return (await instance.exited).code;
        }),
      );
      if (codes.some((code) => code === null)) return { code: null };
      return { code: Math.max(...(codes as number[])) };
    },
    async stop() {
      await Promise.all(instances.map((instance) => instance.stop()));
      await proxy.close();
      await stopRedis();
    },
    toString: () =>
      instances.map((instance) => `--- ${instance.name}\n${instance.output()}`).join('\n'),
  } as ClusterTarget;
}
