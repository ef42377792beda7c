/**
 * This instance in the cluster: its tag, the ids it mints (they name it as
 * their holder), its liveness key and the heartbeat that renews it. Other parts add their own
 * periodic work to the same heartbeat (`onBeat`), so one beat is one pipelined round trip.
 */

import { encodeMessage } from './bus-messages.ts';
import type { RedisConnection, RedisOp, RedisReply, RedisReplyError } from './connection.ts';
import { LIVENESS_HEARTBEATS, type RedisKeys } from './keys.ts';

const TAG_LENGTH = 10;
const TAG = /^[0-9a-z]{10}$/;

/** 10 random base36 characters (≈ 52 bits), without `-` or `.`: the instance's tag. */
export function newInstanceTag(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TAG_LENGTH));
  let tag = '';
  // 252 = 7 × 36: bytes at or above it are redrawn, so every character is uniform.
  for (let i = 0; tag.length < TAG_LENGTH; i++) {
    if (i === bytes.length) {
      crypto.getRandomValues(bytes);
      i = 0;
    }
    const byte = bytes[i] as number;
    if (byte < 252) tag += (byte % 36).toString(36);
  }
  return tag;
}

export function isInstanceTag(value: string): boolean {
  return TAG.test(value);
}

/** The ids an instance mints for every session it serves (the core's `SessionIds`). */
export interface InstanceIds {
  /** `<tag>.<n>`: a request stream held here. */
  stream(): string;
  /** `s<tag>.<n>`: a server→client request waiting here. */
  request(): string;
}

/** One counter for all sessions: a per-session one would repeat after a replica is rebuilt. */
export function instanceIds(tag: string): InstanceIds {
  let next = 1;
  return {
    stream: () => `${tag}.${next++}`,
    request: () => `s${tag}.${next++}`,
  };
}

/**
 * The tag of the instance that minted a stream id (`k3x9q0ab1z.12`), a server→client request id
 * (`sk3x9q0ab1z.5`) or an event id of such a stream (`k3x9q0ab1z.12-57`); else `undefined`
 * (the standalone stream `0`, ids of a memory session, client-chosen ids).
 */
export function holderOf(id: string | number): string | undefined {
  if (typeof id !== 'string') return undefined;
  const match = /^s?([0-9a-z]{10})\.\d+(?:-\d+)?$/.exec(id);
  return match?.[1];
}

/** Periodic work done with the heartbeat: its operations join the beat's pipeline. */
export interface BeatPart {
  ops: readonly RedisOp[];
  /** The replies of `ops`, in order (a Redis error as a `RedisReplyError` in its place). */
  done?(replies: Array<RedisReply | RedisReplyError>): void;
  /** The beat failed as a whole (Redis unreachable). */
  failed?(error: Error): void;
}

export interface InstanceOptions {
  heartbeatMs: number;
  /** The runtime this instance runs on, recorded in its liveness key. */
  runtime?: string;
  onError?: (error: Error, where: string) => void;
}

/** The instance: its tag, liveness key and heartbeat. */
export class Instance {
  readonly tag: string;
  readonly ids: InstanceIds;
  readonly startedAt: number = Date.now();
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #options: InstanceOptions;
  readonly #parts = new Set<() => BeatPart | undefined>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #detach: (() => void) | undefined;

  constructor(
    connection: RedisConnection,
    keys: RedisKeys,
    options: InstanceOptions,
    tag: string = newInstanceTag(),
  ) {
    if (!isInstanceTag(tag)) throw new TypeError(`not an instance tag: ${tag}`);
    this.tag = tag;
    this.ids = instanceIds(tag);
    this.#connection = connection;
    this.#keys = keys;
    this.#options = options;
  }

  /** The liveness key's TTL: three heartbeats. */
  get livenessTtlMs(): number {
    return LIVENESS_HEARTBEATS * this.#options.heartbeatMs;
  }

  /**
   * Sets the liveness key now (rejects if Redis refuses) and starts the heartbeat. A beat also
   * runs as soon as Redis is back after a loss: the key may have lapsed, inboxes filled, writes
   * queued.
   */
  async start(): Promise<void> {
    await this.#connection.command(this.#liveness());
    this.#running = true;
    this.#detach ??= this.#connection.onAvailable(() => {
      if (this.#running)
        this.beat().catch((error: Error) => this.#options.onError?.(error, 'heartbeat'));
    });
    this.#schedule();
  }

  /** Adds periodic work to each beat; `contribute` returns nothing when it has none. */
  onBeat(contribute: () => BeatPart | undefined): () => void {
    this.#parts.add(contribute);
    return () => this.#parts.delete(contribute);
  }

  /** Beats sent so far (each one round trip), so that per-request figures can leave them out. */
  beats = 0;

  /** One beat now: the liveness key and every part's operations, in one pipeline. */
  async beat(): Promise<void> {
    this.beats++;
    const parts: BeatPart[] = [];
    for (const contribute of this.#parts) {
      try {
        const part = contribute();
        if (part) parts.push(part);
      } catch (error) {
        this.#options.onError?.(error as Error, 'heartbeat');
      }
    }
    const ops: RedisOp[] = [this.#liveness(), ...parts.flatMap((part) => part.ops)];
    let replies: Array<RedisReply | RedisReplyError>;
    try {
      replies = await this.#connection.pipeline(ops);
    } catch (error) {
      for (const part of parts) this.#safely(() => part.failed?.(error as Error));
      throw error;
    }
    let at = 1;
    for (const part of parts) {
      const mine = replies.slice(at, at + part.ops.length);
      at += part.ops.length;
      this.#safely(() => part.done?.(mine));
    }
  }

  /**
   * Whether the instance tagged `tag` is alive: its liveness key exists or, sharded, its
   * subscriber still hears its channel. A shard that failed over may have lost the key (or let it
   * lapse while it was away) for an instance that lives; until its next beat, the key alone would
   * call it dead, and its tasks would be answered `failed`.
   */
  async alive(tag: string): Promise<boolean> {
    if ((await this.#connection.command(['EXISTS', this.#keys.instance(tag)])) === 1) return true;
    if (!this.#keys.sharded) return false;
    const ping = encodeMessage(this.tag, { k: 'ping' });
    const heard = await this.#connection.command(['SPUBLISH', this.#keys.channel(tag), ping]);
    return Number(heard) > 0;
  }

  /** Stops the heartbeat and deletes the liveness key (others see this instance gone at once). */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#detach?.();
    this.#detach = undefined;
    try {
      await this.#connection.command(['DEL', this.#keys.instance(this.tag)]);
    } catch (error) {
      // Unreachable Redis: the key lapses by its TTL.
      this.#options.onError?.(error as Error, 'liveness');
    }
  }

  #liveness(): string[] {
    const value = JSON.stringify({
      runtime: this.#options.runtime ?? runtimeName(),
      startedAt: this.startedAt,
    });
    return ['SET', this.#keys.instance(this.tag), value, 'PX', String(this.livenessTtlMs)];
  }

  /** The next beat in `heartbeatMs` ± 10 %, so instances started together spread out. */
  #schedule(): void {
    if (!this.#running) return;
    const jitter = 1 + (Math.random() * 0.2 - 0.1);
    this.#timer = setTimeout(() => {
      this.beat()
        .catch((error: Error) => this.#options.onError?.(error, 'heartbeat'))
        .finally(() => this.#schedule());
    }, this.#options.heartbeatMs * jitter);
    // A heartbeat alone does not keep a process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#options.onError?.(error as Error, 'heartbeat');
    }
  }
}

/** `node`, `deno` or `bun`. */
export function runtimeName(): string {
  const global = globalThis as { Deno?: unknown; Bun?: unknown };
  if (global.Bun !== undefined) return 'bun';
  if (global.Deno !== undefined) return 'deno';
  return 'node';
}
