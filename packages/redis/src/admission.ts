/**
 * The session caps on a sharded cluster. One primary counts them inside the create script; on a
 * cluster the sessions of a principal, and all sessions, are spread over every shard, so a script
 * cannot see them. Instead each cap is a sorted set of its own slot: `ShardedKeys.admitted`
 * (every session) and `principalSessions(principal)`, each id scored by when it was admitted.
 * `admit` adds the new id to both, each atomically under its cap (`ZCARD < max`, then `ZADD`),
 * before the record is created: the caps are never exceeded, even by two instances admitting the
 * last place at once.
 *
 * A session's end removes it from both sets after its script (`release`), a second round trip:
 * an instance that dies in between leaves a stale member, which makes a cap stricter, never
 * looser. At a cap the members admitted more than `PRUNE_GRACE_MS` ago are checked against the
 * records (`EXISTS`, pipelined) and the stale ones go (a younger member may be a session whose
 * record is being created); then the session idle longest (untouched for `evictMs`) is evicted,
 * the principal's own for its quota, anyone's for the cap, as on one primary.
 *
 * @module
 */
import { SessionLimitError } from '@edge-mcp/core/sessions';
import type { RedisContext } from './context.ts';
import type { ShardedKeys } from './keys.ts';
import type { RedisReply } from './redis-types.ts';
import { sessionScripts } from './scripts/sessions.ts';
import { defineScript } from './scripts.ts';

/**
 * Adds ARGV[1] to the sorted set, scored by Redis's time (ms), unless it has ARGV[2] members
 * already. KEYS: the set. Returns `{1, now}` when added, `{0, now}` at the cap.
 */
const ADMIT = defineScript(
  'sharded-admit',
  1,
  `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return { 0, now } end
redis.call('ZADD', KEYS[1], now, ARGV[1])
return { 1, now }`,
);

/** Members checked per pipelined round trip when a set at its cap is pruned. */
const PRUNE_BATCH = 500;
/** A member younger than this may be a session whose record is still being created. */
const PRUNE_GRACE_MS = 30_000;

/** What admission needs of the session store. */
export interface Admitting {
  readonly deadlineMs: number;
  /** Sessions this instance ended in a script: reported once, and released from the sets. */
  ended(replies: readonly RedisReply[]): Promise<void> | undefined;
}

export class Admission {
  readonly #context: RedisContext;
  readonly #keys: ShardedKeys;
  readonly #store: Admitting;

  constructor(context: RedisContext, store: Admitting) {
    this.#context = context;
    this.#keys = context.keys as ShardedKeys;
    this.#store = store;
  }

  /**
   * Takes a place for session `id` of `principal` under both caps, evicting an idle session when
   * one is full; throws `SessionLimitError` (429 for the quota, 503 for the cap) when none can go.
   */
  async admit(id: string, principal: string): Promise<void> {
    const { options } = this.#context;
    const own = this.#keys.principalSessions(principal);
    await this.#take(own, id, options.maxSessionsPerPrincipal, () => this.#evictOldest(own)).catch(
      (error: unknown) => {
        throw error === FULL
          ? new SessionLimitError(options.maxSessionsPerPrincipal, 1, 'principal')
          : error;
      },
    );
    try {
      await this.#take(this.#keys.admitted, id, options.maxSessions, () =>
        this.#evictOldestAnywhere(),
      );
    } catch (error) {
      await this.release([[id, principal]]);
      throw error === FULL ? new SessionLimitError(options.maxSessions, 1) : error;
    }
  }

  /** Ended sessions (`[id, principal]`) leave the sets; best effort (a stale member is repaired). */
  async release(ended: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (ended.length === 0) return;
    const ops = ended.flatMap(([id, principal]) => [
      ['ZREM', this.#keys.admitted, id],
      ['ZREM', this.#keys.principalSessions(principal), id],
    ]);
    try {
      await this.#context.connection.pipeline(ops);
    } catch (error) {
      this.#context.options.onError(error as Error, 'admission');
    }
  }

  /** `ADMIT`; at the cap, prune, evict, and try once more each. */
  async #take(set: string, id: string, max: number, evict: () => Promise<boolean>): Promise<void> {
    const { connection } = this.#context;
    let now = 0;
    const admit = async () => {
      const [added, at] = (await connection.script(ADMIT, [set], [id, max])) as [number, number];
      now = Number(at);
      return added === 1;
    };
    if (await admit()) return;
    if ((await this.#prune(set, now - PRUNE_GRACE_MS)) > 0 && (await admit())) return;
    if ((await evict()) && (await admit())) return;
    throw FULL;
  }

  /** Removes the members of `set` admitted before `before` whose record is gone; how many. */
  async #prune(set: string, before: number): Promise<number> {
    const { connection } = this.#context;
    const members = (await connection.command(['ZRANGEBYSCORE', set, '-inf', before])) as string[];
    let removed = 0;
    for (let from = 0; from < members.length; from += PRUNE_BATCH) {
      const batch = members.slice(from, from + PRUNE_BATCH);
      const found = await connection.pipeline(
        batch.map((id) => ['EXISTS', this.#keys.session(id)]),
      );
      const stale = batch.filter((_, i) => found[i] === 0);
      if (stale.length === 0) continue;
      await connection.command(['ZREM', set, ...stale]);
      removed += stale.length;
    }
    return removed;
  }

  /** Evicts the member of `set` with the oldest deadline, if it is idle. */
  async #evictOldest(set: string): Promise<boolean> {
    const { connection } = this.#context;
    const members = (await connection.command(['ZRANGE', set, 0, -1])) as string[];
    const scores = await connection.pipeline(
      members.map((id) => ['ZSCORE', this.#keys.index(id), id]),
    );
    let oldest: string | undefined;
    let oldestAt = Number.POSITIVE_INFINITY;
    members.forEach((id, i) => {
      const at = Number(scores[i]);
      if (scores[i] !== null && at < oldestAt) [oldest, oldestAt] = [id, at];
    });
    return oldest !== undefined && this.#evict(oldest);
  }

  /** Evicts the session with the oldest deadline of all partitions, if it is idle. */
  async #evictOldestAnywhere(): Promise<boolean> {
    const { connection } = this.#context;
    const firsts = await connection.pipeline(
      this.#keys.indexes().map((index) => ['ZRANGE', index, 0, 0, 'WITHSCORES']),
    );
    let oldest: string | undefined;
    let oldestAt = Number.POSITIVE_INFINITY;
    for (const reply of firsts) {
      // `[member, score]`, flat or as one pair (the cluster client's RESP3 shape).
      const first = Array.isArray(reply) ? reply.flat() : [];
      if (first.length < 2) continue;
      const at = Number(first[1]);
      if (at < oldestAt) [oldest, oldestAt] = [String(first[0]), at];
    }
    return oldest !== undefined && this.#evict(oldest);
  }

  async #evict(id: string): Promise<boolean> {
    const { connection, keys, options, instance } = this.#context;
    const reply = await connection.script(
      sessionScripts(keys).evict,
      [keys.index(id)],
      [
        keys.namespace,
        id,
        this.#store.deadlineMs,
        Math.round(1.5 * options.heartbeatMs),
        instance.tag,
      ],
    );
    if (!Array.isArray(reply) || reply.length === 0) return false;
    // Reported (hooks, onSessionClose) and released from the sets like any other end.
    await this.#store.ended([reply]);
    return true;
  }
}

/** A cap with no place left and nobody idle to evict (turned into a `SessionLimitError`). */
const FULL = Symbol('full');
