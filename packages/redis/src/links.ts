/**
 * What a `RedisConnection` sends through: one Redis primary (a commands client and a subscriber
 * client) or a sharded Redis Cluster (node-redis's cluster client, which routes each command to the
 * primary of its first key's slot, follows `MOVED`/`ASK` and refreshes the topology, and holds one
 * sharded pub/sub connection per shard). The connection above sees neither client.
 *
 * @module
 */
import type { createClient, createCluster } from '@redis/client';

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;
export type Listener = (message: string, channel: string) => void;
/**
 * A change of a link's state: an error, or `undefined` for "ready / reconnecting / ended". On a
 * cluster, `node` says that one node was lost or is back (the link as a whole is unchanged).
 */
export type LinkEvent = (error: Error | undefined, where: string, node?: 'lost' | 'back') => void;

export interface RedisLink {
  /** A sharded cluster: scripts touch one slot, pub/sub is `SSUBSCRIBE`/`SPUBLISH`. */
  readonly sharded: boolean;
  /**
   * Sends one command (on a cluster to the primary of `key`'s slot, by default of its first
   * key's: a `WAIT` names the key whose primary it waits on).
   */
  send(args: string[], key?: string): Promise<unknown>;
  /** Listens to a channel (a sharded channel on a cluster). */
  subscribe(channel: string, listener: Listener): Promise<void>;
  unsubscribe(channel: string, listener?: Listener): Promise<void>;
  /** Whether commands can be sent now. */
  ready(): boolean;
  /** Whether anything is still open (an unsubscribe needs an open subscriber). */
  open(): boolean;
  on(event: LinkEvent): void;
  /** Quits, awaiting pending replies. */
  close(): Promise<void>;
  /** Drops every socket at once. */
  destroy(): void;
}

/** One primary: every command on `commands`, pub/sub on `subscriber`. */
export class StandaloneLink implements RedisLink {
  readonly sharded = false;
  readonly #commands: Client;
  readonly #subscriber: Client;

  constructor(commands: Client, subscriber: Client) {
    this.#commands = commands;
    this.#subscriber = subscriber;
  }

  send(args: string[]): Promise<unknown> {
    return this.#commands.sendCommand(args);
  }

  subscribe(channel: string, listener: Listener): Promise<void> {
    return this.#subscriber.subscribe(channel, listener);
  }

  unsubscribe(channel: string, listener?: Listener): Promise<void> {
    return this.#subscriber.unsubscribe(channel, listener);
  }

  ready(): boolean {
    return this.#commands.isReady && this.#subscriber.isReady;
  }

  open(): boolean {
    return this.#subscriber.isOpen;
  }

  on(event: LinkEvent): void {
    for (const [client, where] of [
      [this.#commands, 'commands'],
      [this.#subscriber, 'subscriber'],
    ] as const) {
      client.on('ready', () => event(undefined, where));
      client.on('error', (error: Error) => event(error, where));
      client.on('reconnecting', () => event(undefined, where));
      client.on('end', () => event(undefined, where));
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#commands, this.#subscriber].map(quit));
  }

  destroy(): void {
    for (const client of [this.#commands, this.#subscriber]) if (client.isOpen) client.destroy();
  }
}

/**
 * A sharded cluster. A node that fails (a primary SIGKILLed, a shard unreachable) fails only the
 * commands routed to it, so the link stays `ready` while any node is: the requests of other
 * shards' sessions go on, and those of the failed shard get 503 until its replica takes over.
 */
export class ClusterLink implements RedisLink {
  readonly sharded = true;
  readonly #cluster: Cluster;

  constructor(cluster: Cluster) {
    this.#cluster = cluster;
  }

  send(args: string[], key?: string): Promise<unknown> {
    return this.#cluster.sendCommand(key ?? firstKey(args), false, args);
  }

  subscribe(channel: string, listener: Listener): Promise<void> {
    return this.#cluster.sSubscribe(channel, listener);
  }

  unsubscribe(channel: string, listener?: Listener): Promise<void> {
    return this.#cluster.sUnsubscribe(channel, listener);
  }

  /** The cluster client is connected (its nodes' troubles are per command, see above). */
  ready(): boolean {
    return this.#cluster.isReady;
  }

  open(): boolean {
    return this.#cluster.isOpen;
  }

  on(event: LinkEvent): void {
    this.#cluster.on('connect', () => event(undefined, 'cluster'));
    this.#cluster.on('disconnect', () => event(undefined, 'cluster'));
    // One node's trouble is reported, not taken for the cluster's (see the class comment); what
    // was sent to it may be lost, as when one primary is away.
    this.#cluster.on('node-error', (error: Error) => event(error, 'cluster node', 'lost'));
    this.#cluster.on('node-ready', () => event(undefined, 'cluster node', 'back'));
    this.#cluster.on('error', (error: Error) => event(error, 'cluster'));
  }

  async close(): Promise<void> {
    if (!this.#cluster.isOpen) return;
    try {
      await this.#cluster.close();
    } catch {
      this.#cluster.destroy();
    }
  }

  destroy(): void {
    if (this.#cluster.isOpen) this.#cluster.destroy();
  }
}

/** Commands without a key: sent to any node. */
const KEYLESS = new Set(['INFO', 'CONFIG', 'SCRIPT', 'PING', 'TIME', 'CLUSTER', 'CLIENT', 'WAIT']);

/** The key a cluster routes `args` by: a script's first key, a channel, or the first argument. */
export function firstKey(args: readonly string[]): string | undefined {
  const name = (args[0] ?? '').toUpperCase();
  if (name === 'EVALSHA' || name === 'EVAL') return Number(args[2]) > 0 ? args[3] : undefined;
  if (KEYLESS.has(name)) return undefined;
  return args[1];
}

async function quit(client: Client): Promise<void> {
  if (!client.isOpen) return;
  try {
    if (client.isReady) await client.close();
    else client.destroy();
  } catch {
    client.destroy();
  }
}
