/**
 * The record seam of legacy sessions (rmcp's `SessionStore`): what a durable store implements so
 * that sessions go on after a restart or an eviction. The store keeps plain JSON records; the
 * core's `SessionManager` keeps the live sessions, their cancellation tree and their end, and
 * calls the store at a handful of moments. `docs/stores.md` walks through a whole store.
 *
 * @module
 */
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { SessionRecord } from './session.ts';
import type { SessionChange, SessionInit } from './session-types.ts';

/** A stored record and the version it was written at (a store that is never shared may say 0). */
export interface StoredSession {
  readonly record: SessionRecord;
  readonly version: number;
}

/**
 * What `load` finds: the record, `'unchanged'` (it is still at the version the manager knows) or
 * `'gone'` (no such session, or it ended).
 */
export type SessionLoad = StoredSession | 'unchanged' | 'gone';

/** What a store may ask of the manager it is bound to. */
export interface SessionStoreHost {
  /**
   * The expiry the store scheduled (`touch`) is due for session `id` (memory timer, Durable
   * Object alarm, Redis sweep). The manager ends the session (reason `session-expired`, its
   * record deleted through `delete`) unless it has been used since; it answers when to check
   * again, or undefined when nothing is left to schedule (ended, unknown, or busy: a busy
   * session is touched again when it goes idle).
   */
  expired(id: string): number | undefined | Promise<number | undefined>;
  /**
   * The store must end session `id` itself (a store that holds one session opens a new one, a
   * cap makes room): it ends like a DELETE does, hooks included, and its record is deleted.
   */
  end(id: string, reason: AbortReasonType): void | Promise<void>;
  /**
   * The store ended session `id` itself (a shared store's sweep or eviction) and its record is
   * gone: the manager runs the end (hooks, `onSessionClose`), with `record` for one it does not
   * hold. Once per session in the whole cluster, by the instance whose store ended it.
   */
  ended(record: SessionRecord, reason: AbortReasonType): void;
  /**
   * Session `id` ended elsewhere (another instance ended it; a shared store learnt it): what this
   * instance holds of it goes, without the end's hooks (they ran where it ended).
   */
  gone(id: string, reason: AbortReasonType): void;
  /** Calls `fn` for each session the manager holds, and whether it is busy (a shared store's heartbeat). */
  forEachHeld(fn: (id: string, busy: boolean) => void): void;
}

/**
 * Where the records of legacy sessions are kept. Every method may answer at once or with a
 * promise; one that rejects with `StoreUnavailableError` has the request answered 503 with
 * `Retry-After` (any other rejection: 500). The manager calls, for each session:
 *
 * 1. `create(init)` once, for the new session's id; then `write(record)` with its first record;
 * 2. `write(record, change)` whenever durable state changes (log level, subscriptions, the state
 *    bag, the stream counter), the whole record each time and `change` naming what moved;
 * 3. `touch(id, lastActive, expiresAt)` when it goes idle;
 * 4. `load(id)` when a request names a session the manager does not hold (after a restart), and
 *    for a `shared` store on every request, with the version it holds;
 * 5. `delete(id, reason)` once when it ends (DELETE, idle timeout, eviction, operator).
 */
export interface SessionStore {
  /** Called once, by the manager the store is given to, before any other call. */
  bind?(host: SessionStoreHost): void;
  /**
   * Mints the id of a new session. It may refuse with `SessionLimitError` (a cap the store keeps
   * across instances). The id must be unguessable (a random UUID, say).
   */
  create(init: SessionInit): string | Promise<string>;
  /**
   * The record of session `id`. `knownVersion` is the version of the record the manager holds,
   * if it holds one: a store may answer `'unchanged'` instead of reading the record again.
   */
  load(id: string, knownVersion: number | undefined): SessionLoad | Promise<SessionLoad>;
  /**
   * Stores the session's whole record. The answer of the request that made the change waits for
   * a returned promise, so a change is durable before the client hears of it.
   */
  write(record: SessionRecord, change: SessionChange | undefined): void | Promise<void>;
  /**
   * The session ended with `reason`: its record goes. A shared store answers false when the
   * record was gone already (ended by another instance meanwhile: its end ran there).
   */
  delete(id: string, reason: AbortReasonType): boolean | Promise<boolean>;
  /**
   * Ends every session the store keeps (the operator's `closeAll`), those of other instances too,
   * reporting the ones it ends through `host.ended`. Without it, `closeAll` ends the sessions the
   * manager holds.
   */
  clear?(reason: AbortReasonType): Promise<unknown>;
  /**
   * The session went idle at `lastActive` (no request in flight, no open stream): call the
   * host's `expired(id)` at `expiresAt` unless it is touched again first. Without `touch` the
   * manager times idle sessions out itself, while it holds them.
   */
  touch?(id: string, lastActive: number, expiresAt: number): void;
  /**
   * Other holders (instances) write the records too: the manager loads the record, with the
   * version it holds, on every request; it keeps no caps of its own (the store's `create` does)
   * and drops idle copies past `maxReplicas`. A shared store times sessions out itself (its
   * deadlines see every instance's use) and reports them through `host.ended`. @default false
   */
  readonly shared?: boolean;
  /** The handler closes: let go of connections and timers (the records stay). */
  close?(): void | Promise<void>;
}
