/**
 * Durable changes of a session: a change becomes field operations; those of one
 * tick go to Redis in one `WRITE` script call, whose promise the request's answer waits for
 * (`session.writes`). A write that fails because Redis is away stays queued (the last operation
 * per field) and is flushed by the heartbeat and on reconnection: a blip loses no change a
 * handler made. What is kept per session lives only while something is unwritten.
 */

import type { SessionChange, SessionRecord } from '@edge-mcp/core/sessions';
import { encodeMessage } from './bus-messages.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { RedisUnavailableError } from './redis-types.ts';
import { sessionScripts } from './scripts/sessions.ts';
import { addChange, FieldOps } from './session-record.ts';

/** What is unwritten of one session. */
interface Pending {
  /** Field operations not written yet: this tick's, or queued after a failed write. */
  unsent: FieldOps | undefined;
  /** Settles the requests waiting for `unsent` (undefined when none waits). */
  settle: (() => void) | undefined;
  /** What those requests wait for. */
  written: Promise<void> | undefined;
  /** Writes sent and not answered yet. */
  writing: number;
  /** A write failed: `unsent` waits for Redis (flushed by the heartbeat and on reconnection). */
  queued: boolean;
}

export class SessionWriter {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #tag: string;
  readonly #onError: (error: Error, where: string) => void;
  readonly #pending = new Map<string, Pending>();

  constructor(
    connection: RedisConnection,
    keys: RedisKeys,
    tag: string,
    onError: (error: Error, where: string) => void,
  ) {
    this.#connection = connection;
    this.#keys = keys;
    this.#tag = tag;
    this.#onError = onError;
  }

  /** Sharded: the home of session `id`'s standalone stream hears that a subscription changed. */
  #tellStale(id: string, home: string): void {
    const message = encodeMessage(this.#tag, { k: 'stale', s: id });
    this.#connection
      .command(['SPUBLISH', this.#keys.channel(home), message])
      .catch((error: Error) => this.#onError(error, 'session-write'));
  }

  /** Whether something of session `id` is not in Redis yet (its copy here is newer). */
  unwritten(id: string): boolean {
    return this.#pending.has(id);
  }

  /** `SessionStore.write`: the promise of the write that will carry the change. */
  changed(record: SessionRecord, change?: SessionChange): Promise<void> | undefined {
    const id = record.id;
    const pending = this.#pending.get(id) ?? {
      unsent: undefined,
      settle: undefined,
      written: undefined,
      writing: 0,
      queued: false,
    };
    const ops = pending.unsent ?? new FieldOps();
    if (!addChange(ops, record, change))
      this.#onError(
        new Error(`session ${id}: a state value is not JSON; it stays on this instance only`),
        'session-state',
      );
    if (ops.empty) return pending.written;
    pending.unsent = ops;
    this.#pending.set(id, pending);
    // Redis is away: the change waits with the queued ones (the answer does not).
    if (pending.queued) return undefined;
    if (!pending.written) {
      pending.written = new Promise<void>((resolve) => {
        pending.settle = resolve;
      });
      // One write per session at a time (so a failed one is re-queued before what followed it):
      // a change made meanwhile goes when it is answered.
      if (pending.writing === 0) queueMicrotask(() => void this.flush(id));
    }
    return pending.written;
  }

  /** Sends every queued write (the heartbeat, a reconnection, shutdown); never rejects. */
  flushQueued(all = false): Promise<void> {
    const flushed: Array<Promise<void>> = [];
    for (const [id, pending] of this.#pending)
      if ((pending.queued || all) && pending.writing === 0) flushed.push(this.flush(id, true));
    return Promise.all(flushed).then(() => undefined);
  }

  /** Sends session `id`'s queued write, if it has one (Redis answered it again); never rejects. */
  flushQueuedOf(id: string): Promise<void> {
    const pending = this.#pending.get(id);
    if (!pending?.queued || pending.writing > 0) return Promise.resolve();
    return this.flush(id, true);
  }

  /**
   * Writes what session `id` has not written yet (one round trip), then what changed meanwhile;
   * never rejects. While a write is queued for Redis's return, only `retry` sends it.
   */
  flush(id: string, retry = false): Promise<void> {
    const pending = this.#pending.get(id);
    if (!pending || pending.writing > 0 || (pending.queued && !retry)) return Promise.resolve();
    const ops = pending.unsent;
    const settle = pending.settle;
    pending.unsent = undefined;
    pending.settle = undefined;
    pending.written = undefined;
    if (!ops || ops.empty) {
      this.#pending.delete(id);
      settle?.();
      return Promise.resolve();
    }
    pending.writing++;
    const args = [this.#keys.namespace, id, this.#tag, ...ops.args()];
    const write = sessionScripts(this.#keys).write;
    return this.#connection.durable(write, [this.#keys.session(id)], args).then(
      (reply) => {
        // Sharded: the home of the standalone stream is told here (another slot than the write).
        if (Array.isArray(reply)) this.#tellStale(id, String(reply[1]));
        // 0 (the session is gone) needs nothing here: the next touch or heartbeat finds it.
        pending.writing--;
        pending.queued = false;
        settle?.();
        if (pending.unsent) return this.flush(id);
        this.#pending.delete(id);
      },
      (error: Error) => {
        pending.writing--;
        if (error instanceof RedisUnavailableError) {
          // Kept, before whatever changed since: flushed once Redis is back.
          if (pending.unsent) ops.merge(pending.unsent);
          pending.unsent = ops;
          pending.queued = true;
        } else if (!pending.unsent) this.#pending.delete(id);
        this.#onError(error, 'session-write');
        settle?.();
        // Requests that changed something meanwhile do not wait for Redis's return either.
        pending.settle?.();
        pending.settle = undefined;
        pending.written = undefined;
      },
    );
  }

  /** The session ended: what it had not written goes. */
  drop(id: string): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.settle?.();
  }
}
