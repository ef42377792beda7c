/**
 * The cluster bus on Redis pub/sub: a broadcast channel `<ns>:all` and one channel
 * per instance `<ns>:i:<tag>`, on the subscriber connection. Delivery is at most once and in order
 * per publisher; what must not be lost is either repaired by state (the heartbeat) or sent with
 * `deliver()` (the inbox fallback). `PUBLISH`'s receiver count tells a targeted sender whether
 * anybody listened: 0 receivers and no liveness key means the target is gone.
 *
 * Parts of the package register what they handle with `on(kind, handler)`; the bus itself turns
 * `list` and `res` into the core's `ClusterHost.deliver()` (it is the handler's `cluster` option).
 */
import type { ListKind } from '@edge-mcp/core';
import type { ClusterBus, ClusterEvent, ClusterHost } from '@edge-mcp/core/cluster';
import {
  type BusEnvelope,
  type BusKind,
  type BusMessage,
  decodeMessage,
  encodeMessage,
} from './bus-messages.ts';
import type { RedisConnection, RedisReply } from './connection.ts';
import type { Instance } from './instance.ts';
import { INBOX_TTL_MS, type RedisKeys } from './keys.ts';
import { PUBLISH_OR_INBOX, SHARDED_PUBLISH_OR_INBOX } from './scripts/bus.ts';

/** How a message arrived: on the broadcast channel or on this instance's own. */
export type BusChannel = 'broadcast' | 'targeted';
export type BusHandler<K extends BusKind> = (message: BusEnvelope<K>, channel: BusChannel) => void;

/** Where `deliver()` left a message. */
export type Delivery = 'delivered' | 'inboxed' | 'gone';

export interface BusStats {
  published: number;
  received: number;
}

const LISTS: ReadonlySet<string> = new Set<ListKind>(['tools', 'resources', 'prompts']);
const INBOX_BATCH = 100;
/** At most this many distinct "ignored message" reasons are reported (a newer peer may repeat). */
const REPORTED_LIMIT = 100;

export class RedisBus implements ClusterBus {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #instance: Instance;
  readonly #onError: ((error: Error, where: string) => void) | undefined;
  readonly #handlers = new Map<BusKind, Set<BusHandler<BusKind>>>();
  readonly #stats: BusStats = { published: 0, received: 0 };
  readonly #reported = new Set<string>();
  readonly #detach: Array<() => void> = [];
  readonly #broadcastListener = (text: string) => this.#dispatch(text, 'broadcast');
  readonly #targetedListener = (text: string) => this.#dispatch(text, 'targeted');
  #host: ClusterHost | undefined;
  #started = false;

  constructor(
    connection: RedisConnection,
    keys: RedisKeys,
    instance: Instance,
    onError?: (error: Error, where: string) => void,
  ) {
    this.#connection = connection;
    this.#keys = keys;
    this.#instance = instance;
    this.#onError = onError;
    this.on('list', ({ l }) => {
      if (LISTS.has(l)) this.#host?.deliver({ kind: 'list-changed', list: l as ListKind });
    });
    this.on('res', ({ u }) => this.#host?.deliver({ kind: 'resource-updated', uri: u }));
  }

  /** This instance's tag (`o` of what it sends). */
  get tag(): string {
    return this.#instance.tag;
  }

  stats(): BusStats {
    return { ...this.#stats };
  }

  /** Subscribes both channels; drains the inbox then and with each beat (one follows a reconnection). */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const channel of this.#keys.broadcasts())
      await this.#connection.subscribe(channel, this.#broadcastListener);
    await this.#connection.subscribe(this.#keys.channel(this.tag), this.#targetedListener);
    this.#detach.push(
      this.#instance.onBeat(() => ({
        ops: [['LPOP', this.#keys.inbox(this.tag), INBOX_BATCH]],
        done: ([reply]) => {
          if (this.#takeInbox(reply) === INBOX_BATCH)
            this.drainInbox().catch((error: Error) => this.#onError?.(error, 'inbox'));
        },
      })),
    );
    await this.drainInbox();
  }

  /** Handles messages of `kind` (several handlers may share a kind). Returns the removal. */
  on<K extends BusKind>(kind: K, handler: BusHandler<K>): () => void {
    let set = this.#handlers.get(kind);
    if (!set) {
      set = new Set();
      this.#handlers.set(kind, set);
    }
    const added = handler as BusHandler<BusKind>;
    set.add(added);
    return () => set.delete(added);
  }

  /** Publishes to every instance (this one ignores its own); resolves with the receivers. */
  async broadcast(message: BusMessage): Promise<number> {
    const session = (message as { s?: unknown }).s;
    const channel =
      typeof session === 'string'
        ? this.#keys.broadcastOf(session)
        : this.#keys.anyBroadcast(broadcastKey(message));
    return this.#publish(channel, message);
  }

  /** Publishes to the instance tagged `tag`; 0 receivers: nobody listens there now. */
  async send(tag: string, message: BusMessage): Promise<number> {
    return this.#publish(this.#keys.channel(tag), message);
  }

  /**
   * Sends a message that must not be lost (`resp`): published to `tag`, or kept in its inbox when
   * its subscriber is away but its liveness key says it lives; `gone` when it does not.
   */
  async deliver(tag: string, message: BusMessage): Promise<Delivery> {
    const reply = await this.#connection.script(
      this.#keys.sharded ? SHARDED_PUBLISH_OR_INBOX : PUBLISH_OR_INBOX,
      [this.#keys.instance(tag), this.#keys.inbox(tag)],
      [this.#keys.channel(tag), encodeMessage(this.tag, message), INBOX_TTL_MS],
    );
    this.#stats.published++;
    return reply === 0 ? 'gone' : reply === -1 ? 'inboxed' : 'delivered';
  }

  /** Takes every message waiting in this instance's inbox and handles it; resolves with the count. */
  async drainInbox(): Promise<number> {
    let total = 0;
    for (;;) {
      const taken = this.#takeInbox(
        await this.#connection.command(['LPOP', this.#keys.inbox(this.tag), INBOX_BATCH]),
      );
      total += taken;
      if (taken < INBOX_BATCH) return total;
    }
  }

  /** Listens to another channel (a link's, a test's); messages are decoded as on the bus's own. */
  async subscribe(
    channel: string,
    handler: (message: BusEnvelope) => void,
  ): Promise<() => Promise<void>> {
    const listener = (text: string) => {
      const message = this.#decode(text);
      if (message) this.#safely(() => handler(message));
    };
    await this.#connection.subscribe(channel, listener);
    return () => this.#connection.unsubscribe(channel, listener);
  }

  /** The core's `ClusterBus.bind`: events raised elsewhere reach `host`. */
  bind(host: ClusterHost): void {
    this.#host = host;
  }

  /** The core's `ClusterBus.publish`: an event raised here, for every other instance. */
  publish(event: ClusterEvent): void {
    const message: BusMessage =
      event.kind === 'list-changed' ? { k: 'list', l: event.list } : { k: 'res', u: event.uri };
    this.broadcast(message).catch((error: Error) => this.#onError?.(error, 'bus'));
  }

  /** Unsubscribes both channels and stops draining the inbox. */
  async close(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    for (const detach of this.#detach.splice(0)) detach();
    await Promise.allSettled([
      ...this.#keys
        .broadcasts()
        .map((channel) => this.#connection.unsubscribe(channel, this.#broadcastListener)),
      this.#connection.unsubscribe(this.#keys.channel(this.tag), this.#targetedListener),
    ]);
  }

  async #publish(channel: string, message: BusMessage): Promise<number> {
    const receivers = await this.#connection.command([
      this.#keys.sharded ? 'SPUBLISH' : 'PUBLISH',
      channel,
      encodeMessage(this.tag, message),
    ]);
    this.#stats.published++;
    return receivers as number;
  }

  #takeInbox(reply: RedisReply | Error | undefined): number {
    if (!Array.isArray(reply)) return 0;
    for (const text of reply) this.#dispatch(String(text), 'targeted');
    return reply.length;
  }

  #dispatch(text: string, channel: BusChannel): void {
    const message = this.#decode(text);
    if (!message) return;
    if (channel === 'broadcast' && message.o === this.tag) return;
    this.#stats.received++;
    const handlers = this.#handlers.get(message.k);
    if (!handlers || handlers.size === 0) {
      this.#ignored(`no handler for ${message.k}`);
      return;
    }
    for (const handler of handlers) this.#safely(() => handler(message, channel));
  }

  #decode(text: string): BusEnvelope | undefined {
    const decoded = decodeMessage(text);
    if ('message' in decoded) return decoded.message;
    this.#ignored(`${decoded.ignored}${decoded.kind ? ` (${decoded.kind})` : ''}`);
    return undefined;
  }

  /** Reports each reason once: a newer peer would repeat the same unknown kind. */
  #ignored(reason: string): void {
    if (this.#reported.has(reason) || this.#reported.size >= REPORTED_LIMIT) return;
    this.#reported.add(reason);
    this.#onError?.(new Error(`bus message ignored: ${reason}`), 'bus');
  }

  #safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#onError?.(error as Error, 'bus');
    }
  }
}

/**
 * What orders a broadcast about no session (sharded, one channel per partition): messages about
 * one list or one resource go to the same channel, so they arrive in the order sent. Those about
 * a session go to its partition's channel, after or before its `closed`, in order.
 */
function broadcastKey(message: BusMessage): string {
  const fields = message as { l?: string; u?: string };
  return `${message.k}:${fields.l ?? fields.u ?? ''}`;
}
