/**
 * A real sharded Redis Cluster for tests: `redis-server` processes in cluster mode on free
 * loopback ports (3 primaries with one replica each by default), joined with
 * `redis-cli --cluster create`, ready once every node reports `cluster_state:ok` and every
 * replica is in sync. Each node is a `RedisServer` of `startRedis`, so a test can SIGKILL, pause
 * or restart one; the helpers here do what an operator does to a cluster (a manual failover, a
 * slot migration) with `redis-cli`, the tool operators use.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type RedisServer, startRedis } from './redis-server.ts';
import { until } from './wait.ts';

const run = promisify(execFile);

export interface RedisClusterOptions {
  /** @default 3 */
  primaries?: number;
  /** @default 1 */
  replicasPerPrimary?: number;
  /**
   * How long a node may be unreachable before the others fail it over (`cluster-node-timeout`).
   * Short, so a SIGKILLed primary's replica takes over within seconds. @default 1500
   */
  nodeTimeoutMs?: number;
  /** The `redis-cli` binary @default process.env.REDIS_CLI ?? '/usr/bin/redis-cli' */
  cli?: string;
}

export interface ClusterNode {
  readonly server: RedisServer;
  readonly port: number;
  /** `primary` or `replica`, as the node says now. */
  role(): Promise<'primary' | 'replica'>;
}

export interface RedisCluster {
  /** Every node, primaries first as created (roles change with failovers: ask `role()`). */
  readonly nodes: readonly ClusterNode[];
  /** `redis://127.0.0.1:<port>` of every node: the seed list a client is given. */
  readonly urls: readonly string[];
  /** The nodes that are primaries now and answer. */
  primaries(): Promise<ClusterNode[]>;
  /** The node serving `key`'s slot as primary now. */
  primaryOf(key: string): Promise<ClusterNode>;
  /** `redis-cli` against one node: its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** Every live node reports `cluster_state:ok` and agrees on who serves every slot. */
  settled(ms?: number): Promise<void>;
  /** A manual failover: `replica` (a replica now) becomes its primary's primary. */
  failover(replica: ClusterNode): Promise<void>;
  /** Moves `count` slots from `from` to `to` (both primaries), live, with `redis-cli --cluster reshard`. */
  reshard(from: ClusterNode, to: ClusterNode, count: number): Promise<void>;
  /** Stops every node. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts a cluster of `primaries × (1 + replicasPerPrimary)` nodes and waits until it is ready. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 1;
  const cliBinary = options.cli ?? process.env.REDIS_CLI ?? '/usr/bin/redis-cli';
  const nodeArgs = [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-node-timeout',
    String(options.nodeTimeoutMs ?? 1500),
    // A replica of a primary that was away long takes over anyway (tests kill primaries).
    '--cluster-replica-validity-factor',
    '0',
    // While one shard fails over, the others keep answering (the README's recommendation).
    '--cluster-require-full-coverage',
    'no',
    '--appendonly',
    'yes',
  ];
  const servers: RedisServer[] = [];
  const stopAll = () => Promise.all(servers.map((server) => server.stop()));
  try {
    for (let i = 0; i < primaries * (1 + replicas); i++)
      servers.push(await startRedis({ args: nodeArgs }));
  } catch (error) {
    await stopAll();
    throw error;
  }
  const cli = async (port: number, ...args: string[]): Promise<string> => {
    const { stdout } = await run(cliBinary, ['-h', '127.0.0.1', '-p', String(port), ...args], {
      timeout: 60_000,
    });
    return stdout;
  };
  const nodes: ClusterNode[] = servers.map((server) => ({
    server,
    port: server.port,
    async role() {
      const info = await cli(server.port, 'ROLE');
      return info.startsWith('master') ? 'primary' : 'replica';
    },
  }));
  const answering = async (): Promise<ClusterNode[]> => {
    const alive: ClusterNode[] = [];
    for (const node of nodes) if (await responds(cli, node.port)) alive.push(node);
    return alive;
  };
  const cluster: RedisCluster = {
    nodes,
    urls: servers.map((server) => server.url),
    async primaries() {
      const found: ClusterNode[] = [];
      for (const node of await answering())
        if ((await node.role().catch(() => 'replica')) === 'primary') found.push(node);
      return found;
    },
    async primaryOf(key) {
      const [any] = await answering();
      if (!any) throw new Error('no node of the cluster answers');
      const slot = (await cli(any.port, 'CLUSTER', 'KEYSLOT', key)).trim();
      for (const node of await cluster.primaries())
        if (await ownsSlot(cli, node.port, Number(slot))) return node;
      throw new Error(`no primary serves slot ${slot}`);
    },
    cli,
    async settled(ms = 30_000) {
      await until(
        async () => {
          const alive = await answering();
          const views = await Promise.all(
            alive.map((node) => cli(node.port, 'CLUSTER', 'INFO').catch(() => '')),
          );
          return views.every(
            (view) => view.includes('cluster_state:ok') && view.includes('cluster_slots_ok:16384'),
          );
        },
        'the Redis Cluster to report cluster_state:ok on every node',
        ms,
        100,
      );
    },
    async failover(replica) {
      await cli(replica.port, 'CLUSTER', 'FAILOVER');
      await until(
        async () => (await replica.role()) === 'primary',
        `node ${replica.port} to become a primary`,
        30_000,
        50,
      );
      await cluster.settled();
    },
    async reshard(from, to, count) {
      const [fromId, toId] = await Promise.all(
        [from, to].map(async (node) => (await cli(node.port, 'CLUSTER', 'MYID')).trim()),
      );
      await cli(
        from.port,
        '--cluster',
        'reshard',
        `127.0.0.1:${from.port}`,
        '--cluster-from',
        fromId as string,
        '--cluster-to',
        toId as string,
        '--cluster-slots',
        String(count),
        '--cluster-yes',
      );
      await cluster.settled();
    },
    async stop() {
      await stopAll();
    },
  };
  try {
    await cli(
      servers[0]?.port as number,
      '--cluster',
      'create',
      ...servers.map((server) => `127.0.0.1:${server.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    );
    await cluster.settled();
    await until(
      async () => {
        for (const node of nodes) {
          const info = await cli(node.port, 'INFO', 'replication');
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
        }
        return true;
      },
      'every replica of the Redis Cluster to be in sync',
      30_000,
      100,
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
  return cluster;
}

async function responds(
  cli: (port: number, ...args: string[]) => Promise<string>,
  port: number,
): Promise<boolean> {
  try {
    return (await cli(port, 'PING')).trim() === 'PONG';
  } catch {
    return false;
  }
}

/** Whether the primary on `port` serves `slot`, by its own `CLUSTER NODES` line. */
async function ownsSlot(
  cli: (port: number, ...args: string[]) => Promise<string>,
  port: number,
  slot: number,
): Promise<boolean> {
  const lines = (await cli(port, 'CLUSTER', 'NODES')).split('\n');
  const self = lines.find((line) => line.includes('myself'));
  if (!self) return false;
  for (const range of self.split(' ').slice(8)) {
    if (range.startsWith('[')) continue; // a slot being migrated
    const [low, high = low] = range.split('-').map(Number);
    if (low !== undefined && high !== undefined && slot >= low && slot <= high) return true;
  }
  return false;
}
