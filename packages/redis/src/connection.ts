/**
 * The two connections of an instance: **commands** (everything; node-redis writes
 * the commands issued before its next `setImmediate` in one write) and **subscriber** (pub/sub
 * only). No node-redis type crosses this module's surface: replies are plain RESP2 values.
 */
import { ErrorReply } from '@redis/client';
import { openConnection } from './connect.ts';
import type { Listener, RedisLink } from './links.ts';
import type { ConnectionOptions } from './redis-types.ts';

export type { ConnectionOptions } from './redis-types.ts';

import { REDIS_DEFAULTS } from './options.ts';
import {
  type RedisArg,
  type RedisOp,
  type RedisReply,
  RedisReplyError,
  RedisUnavailableError,
} from './redis-types.ts';
import { type RedisScript, registeredScripts } from './scripts.ts';

export {
  type RedisArg,
  type RedisOp,
  type RedisReply,
  RedisReplyError,
  RedisUnavailableError,
} from './redis-types.ts';

export interface ConnectionStats {
  /** Awaited operations: a command, a script or a pipeline each count 1. */
  roundTrips: number;
  commands: number;
  /** Times both connections became ready again after a loss. */
  reconnects: number;
}

/** Connects both connections; rejects with `RedisUnavailableError` within `connectTimeoutMs`. */
export function connectRedis(options: ConnectionOptions): Promise<RedisConnection> {
  return RedisConnection.connect(options);
}

/**
 * Replies that mean "not now" rather than "wrong": a Redis loading its data, a cluster without a
 * majority or a slot without a primary, a multi-key command during a slot's migration. The
 * request gets 503 with `Retry-After`.
 */
const UNAVAILABLE = /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN)/;

/** An instance's two connections to Redis. Made by `connectRedis`. */
export class RedisConnection {
  /** The URL, its password masked. */
  readonly url: string;
  readonly #link: RedisLink;
  readonly #onError: ((error: Error, where: string) => void) | undefined;
  readonly #socketTimeoutMs: number;
  readonly #retryAfterSeconds: number;
  readonly #replicas: { count: number; timeoutMs: number };
  readonly #stats: ConnectionStats = { roundTrips: 0, commands: 0, reconnects: 0 };
  readonly #up = new Set<() => void>();
  readonly #down = new Set<(error: Error) => void>();
  #available = true;
  #closed = false;

  /** Connects both connections (`connectRedis`). */
  static connect(options: ConnectionOptions): Promise<RedisConnection> {
    return openConnection(options, (url, link) => new RedisConnection(url, link, options));
  }

  private constructor(
    url: string,
    link: RedisLink,
    options: Pick<
      ConnectionOptions,
      'socketTimeoutMs' | 'onError' | 'retryAfterSeconds' | 'waitForReplicas' | 'replicaTimeoutMs'
    >,
  ) {
    this.url = url;
    this.#replicas = {
      count: options.waitForReplicas ?? 0,
      timeoutMs: options.replicaTimeoutMs ?? REDIS_DEFAULTS.replicaTimeoutMs,
    };
    this.#socketTimeoutMs = options.socketTimeoutMs ?? REDIS_DEFAULTS.socketTimeoutMs;
    this.#retryAfterSeconds = options.retryAfterSeconds ?? REDIS_DEFAULTS.retryAfterSeconds;
    this.#link = link;
    this.#onError = options.onError;
    link.on((error, where, node) => {
      if (node === undefined) this.#update(error, where);
      else this.#node(error, node);
    });
  }

  /**
   * A sharded Redis Cluster: every script touches one slot and pub/sub is sharded
   * (`SPUBLISH`/`SSUBSCRIBE`); the key layout follows (`RedisKeys.sharded`).
   */
  get sharded(): boolean {
    return this.#link.sharded;
  }

  /** Both connections are ready. */
  get available(): boolean {
    return this.#available;
  }

  stats(): ConnectionStats {
    return { ...this.#stats };
  }

  /** After a loss, both connections are ready again (scripts are being reloaded). */
  onAvailable(listener: () => void): () => void {
    this.#up.add(listener);
    return () => this.#up.delete(listener);
  }

  /** A connection was lost (commands fail with `RedisUnavailableError` until `onAvailable`). */
  onUnavailable(listener: (error: Error) => void): () => void {
    this.#down.add(listener);
    return () => this.#down.delete(listener);
  }

  /** One command, one round trip. */
  command(args: readonly RedisArg[]): Promise<RedisReply> {
    this.#stats.roundTrips++;
    return this.#send(args);
  }

  /** One script (`EVALSHA`, `EVAL` on `NOSCRIPT`), one round trip. */
  script(
    script: RedisScript,
    keys: readonly string[],
    args: readonly RedisArg[] = [],
  ): Promise<RedisReply> {
    this.#stats.roundTrips++;
    return this.#run({ script, keys, args });
  }

  /**
   * A script whose write must survive a failover: with `waitForReplicas` > 0, a `WAIT` for that
   * many replicas goes right behind it to the same primary (written together: one round trip,
   * plus the replicas' acknowledgement), and the reply comes once both are answered. When the
   * `WAIT` fails (the primary went away before it could tell), the write's fate is unknown; it
   * is answered as written and reported: sent again, it could undo what another instance wrote
   * since on the promoted replica, or store an event twice. So a write in flight at the instant
   * its primary dies may still be lost (Redis replicates asynchronously; the README says so). A
   * write the replicas did not acknowledge within `replicaTimeoutMs` (its primary lives, a
   * replica lags or is down) is answered too, and reported.
   */
  durable(
    script: RedisScript,
    keys: readonly string[],
    args: readonly RedisArg[] = [],
  ): Promise<RedisReply> {
    if (this.#replicas.count === 0) return this.script(script, keys, args);
    this.#stats.roundTrips++;
    const key = keys[0] as string;
    let fellBack = false;
    const reply = this.#run({ script, keys, args }, () => {
      fellBack = true;
    });
    const waited = this.#wait(key);
    // Settled together: a rejection of one never goes unhandled while the other is awaited.
    return Promise.allSettled([reply, waited]).then(async ([answer, acked]) => {
      if (answer.status === 'rejected') throw answer.reason;
      if (acked.status === 'rejected') {
        this.#onError?.(acked.reason as Error, 'replication');
        return answer.value;
      }
      // NOSCRIPT: the write was the EVAL sent after the WAIT; that one is waited for now.
      const count = fellBack ? await this.#wait(key).catch(() => 0) : acked.value;
      if (count < this.#replicas.count)
        this.#onError?.(
          new Error(
            `a write reached ${count} of ${this.#replicas.count} replicas in ${this.#replicas.timeoutMs} ms: a failover now could lose it`,
          ),
          'replication',
        );
      return answer.value;
    });
  }

  /** `WAIT` on the primary of `key`'s slot: how many replicas acknowledged. */
  async #wait(key: string): Promise<number> {
    const args = ['WAIT', String(this.#replicas.count), String(this.#replicas.timeoutMs)];
    this.#stats.commands++;
    try {
      return Number(await this.#link.send(args, key));
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /**
   * Operations written together (one round trip); each reply in order, a Redis error as a
   * `RedisReplyError` in its place. Rejects with `RedisUnavailableError` if Redis is unreachable.
   */
  async pipeline(ops: readonly RedisOp[]): Promise<Array<RedisReply | RedisReplyError>> {
    this.#stats.roundTrips++;
    const settled = await Promise.allSettled(ops.map((op) => this.#run(op)));
    return settled.map((result) => {
      if (result.status === 'fulfilled') return result.value;
      if (result.reason instanceof RedisReplyError) return result.reason;
      throw result.reason;
    });
  }

  /** Listens to a pub/sub channel on the subscriber connection (kept across reconnections). */
  async subscribe(channel: string, listener: Listener): Promise<void> {
    try {
      await this.#link.subscribe(channel, listener);
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /**
   * Stops `listener` (every listener of `channel` when omitted) at once. The `UNSUBSCRIBE` itself
   * is awaited at most `socketTimeoutMs`: node-redis keeps it for a connection that is away.
   */
  async unsubscribe(channel: string, listener?: Listener): Promise<void> {
    if (!this.#link.open()) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        this.#link.unsubscribe(channel, listener),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.#socketTimeoutMs);
        }),
      ]);
    } catch (error) {
      throw this.#translate(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `SCRIPT LOAD`s every registered script (at start and after each reconnection). A cluster
   * loads each script on a node the first time it runs there (`NOSCRIPT`, then `EVAL`): a node
   * promoted or added later has none, so loading up front would not be enough anyway.
   */
  async loadScripts(): Promise<void> {
    const scripts = registeredScripts();
    if (scripts.length === 0 || this.#link.sharded) return;
    const replies = await this.pipeline(scripts.map((script) => ['SCRIPT', 'LOAD', script.lua]));
    const failed = replies.find((reply) => reply instanceof RedisReplyError);
    if (failed) throw failed;
  }

  /** Quits both connections (pending replies are awaited, at most `socketTimeoutMs`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#available = false;
    await this.#link.close();
  }

  #run(op: RedisOp, fellBack?: () => void): Promise<RedisReply> {
    if (!('script' in op)) return this.#send(op);
    const { script, keys, args = [] } = op;
    if (script.keys >= 0 && keys.length !== script.keys)
      return Promise.reject(
        new TypeError(`script ${script.name} takes ${script.keys} keys, got ${keys.length}`),
      );
    const rest = [String(keys.length), ...keys, ...args];
    return this.#send(['EVALSHA', script.sha, ...rest]).catch((error: unknown) => {
      if (!(error instanceof RedisReplyError) || !error.message.startsWith('NOSCRIPT')) throw error;
      this.#stats.roundTrips++;
      fellBack?.();
      return this.#send(['EVAL', script.lua, ...rest]);
    });
  }

  async #send(args: readonly RedisArg[]): Promise<RedisReply> {
    this.#stats.commands++;
    try {
      return (await this.#link.send(args.map(String))) as RedisReply;
    } catch (error) {
      throw this.#translate(error);
    }
  }

  #translate(error: unknown): Error {
    if (error instanceof ErrorReply && !UNAVAILABLE.test(error.message))
      return new RedisReplyError(error.message);
    const cause = error as Error;
    return new RedisUnavailableError(`Redis at ${this.url} is unavailable: ${cause.message}`, {
      cause,
      retryAfterSeconds: this.#retryAfterSeconds,
    });
  }

  #update(error: Error | undefined, where: string): void {
    if (this.#closed) return;
    const now = this.#link.ready();
    if (now === this.#available) return;
    this.#available = now;
    if (!now) {
      const lost = error ?? new Error(`the ${where} connection to Redis at ${this.url} closed`);
      this.#onError?.(lost, where);
      for (const listener of this.#down) this.#safely(() => listener(lost));
      return;
    }
    this.#stats.reconnects++;
    this.loadScripts().catch((reason: Error) => this.#onError?.(reason, 'scripts'));
    for (const listener of this.#up) this.#safely(listener);
  }

  /**
   * A cluster node lost or back: what depends on messages arriving (relays, watched tasks,
   * replicas) repairs itself as after a loss of the one primary, while the other shards serve.
   */
  #node(error: Error | undefined, node: 'lost' | 'back'): void {
    if (this.#closed) return;
    if (node === 'lost') {
      const lost = error ?? new Error('a node of the Redis Cluster closed');
      this.#onError?.(lost, 'cluster node');
      for (const listener of this.#down) this.#safely(() => listener(lost));
    } else for (const listener of this.#up) this.#safely(listener);
  }

  /** A listener's error is reported, never thrown into node-redis's event emitter. */
  #safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#onError?.(error as Error, 'connection');
    }
  }
}
