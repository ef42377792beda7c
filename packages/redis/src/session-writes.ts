/**
 * Durable changes of a session (design §4.4.4): a change becomes field operations on the
 * replica; those of one tick go to Redis in one `WRITE` script call, whose promise the request's
 * answer waits for (`session.writes`). The replica's version moves with its own writes; a write
 * that finds another instance wrote in between leaves the version unknown, so the next touch
 * reloads the record. A write that fails because Redis is away stays queued on the replica (the
 * last operation per field) and is flushed by the heartbeat and on reconnection: a blip loses no
 * change a handler made.
 */

import type { Session } from '@edge-mcp/core/cluster';
import type { SessionChange } from '@edge-mcp/core/sessions';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { RedisUnavailableError } from './redis-types.ts';
import type { Replica } from './replicas.ts';
import { WRITE } from './scripts/sessions.ts';
import { addChange, FieldOps } from './session-record.ts';

export class SessionWriter {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #tag: string;
  readonly #onError: (error: Error, where: string) => void;

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

  /** `SessionObserver.changed` for a replica: the promise of the write that will carry it. */
  changed(replica: Replica, session: Session, change?: SessionChange): Promise<void> | undefined {
    const ops = replica.unsent ?? new FieldOps();
    if (!addChange(ops, session, change))
      this.#onError(
        new Error(
          `session ${session.id}: a state value is not JSON; it stays on this instance only`,
        ),
        'session-state',
      );
    if (ops.empty) return replica.written;
    replica.unsent = ops;
    // Redis is away: the change waits with the queued ones (the answer does not).
    if (replica.queued) return undefined;
    if (!replica.written) {
      replica.written = new Promise<void>((resolve) => {
        replica.settle = resolve;
      });
      // One write per replica at a time (so a failed one is re-queued before what followed it):
      // a change made meanwhile goes when it is answered.
      if (replica.writing === 0) queueMicrotask(() => void this.flush(replica));
    }
    return replica.written;
  }

  /**
   * Writes what the replica has not written yet (one round trip), then what changed meanwhile;
   * never rejects. While a write is queued for Redis's return, only `retry` (the heartbeat, a
   * reconnection) sends it.
   */
  flush(replica: Replica, retry = false): Promise<void> {
    if (replica.writing > 0 || (replica.queued && !retry)) return Promise.resolve();
    const ops = replica.unsent;
    const settle = replica.settle;
    replica.unsent = undefined;
    replica.settle = undefined;
    replica.written = undefined;
    if (!ops || ops.empty) {
      settle?.();
      return Promise.resolve();
    }
    const id = replica.session.id;
    const known = replica.version;
    // Optimistic: a touch answered after the write finds this version.
    if (known > 0) replica.version = known + 1;
    replica.writing++;
    const args = [this.#keys.namespace, id, this.#tag, ...ops.args()];
    return this.#connection.script(WRITE, [this.#keys.session(id)], args).then(
      (version) => {
        replica.writing--;
        replica.queued = false;
        // 0: the session is gone (the next touch or heartbeat finds it); another version: an
        // instance wrote in between, so the record is reloaded on the next touch.
        if (version !== 0 && (known <= 0 || version !== known + 1)) replica.version = -1;
        settle?.();
        if (replica.unsent) return this.flush(replica);
      },
      (error: Error) => {
        replica.writing--;
        replica.version = -1;
        if (error instanceof RedisUnavailableError) {
          // Kept, before whatever changed since: flushed once Redis is back.
          if (replica.unsent) ops.merge(replica.unsent);
          replica.unsent = ops;
          replica.queued = true;
        }
        this.#onError(error, 'session-write');
        settle?.();
        // Requests that changed something meanwhile do not wait for Redis's return either.
        replica.settle?.();
        replica.settle = undefined;
        replica.written = undefined;
      },
    );
  }
}
