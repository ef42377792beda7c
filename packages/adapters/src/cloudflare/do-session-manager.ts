import { type AbortReasonType, DEFAULTS } from '@edge-mcp/core';
import type {
  Session,
  SessionHost,
  SessionInit,
  SessionManager,
  SessionObserver,
  SessionRecord,
} from '@edge-mcp/core/sessions';
import { type AlarmUser, ObjectAlarm } from './object-alarm.ts';
import { scopedId } from './session-id.ts';
import type { DurableObjectState } from './workers-types.ts';

const RECORD = 'mcp-session';

/**
 * The SessionManager inside one Durable Object: it holds that object's single session, keeps its
 * record in the object's storage on every durable change (so the session goes on after eviction
 * or restart), and reaps it with an alarm when it has been idle for `idleTimeoutMs`.
 *
 * The session id is `<object id>.<random token>`: the Worker routes by the object id, and the
 * token (kept in storage) makes the id unguessable whatever the object id is.
 *
 * The object's alarm may be shared with its task store (`options.alarm`): ending the session
 * then deletes the session's record, and the object's storage goes only once no task is left.
 */
export class DurableObjectSessionManager implements SessionManager, SessionObserver, AlarmUser {
  readonly #state: DurableObjectState;
  readonly #idleMs: number;
  readonly #alarm: ObjectAlarm;
  #host: SessionHost | undefined;
  #session: Session | undefined;
  #loaded = false;
  /** `lastActive` as last stored: it is rewritten only when it moved by a tenth of the timeout. */
  #storedActive = 0;
  #reaped = 0;

  constructor(
    state: DurableObjectState,
    options: { idleTimeoutMs?: number; alarm?: ObjectAlarm } = {},
  ) {
    this.#state = state;
    this.#idleMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
    this.#alarm = options.alarm ?? new ObjectAlarm(state);
    this.#alarm.add(this);
  }

  get reaped(): number {
    return this.#reaped;
  }

  get size(): number {
    return this.#current() ? 1 : 0;
  }

  bind(host: SessionHost): void {
    this.#host = host;
  }

  create(init: SessionInit): Session {
    const host = this.#bound();
    const previous = this.#current();
    if (previous) this.#end(previous, 'session-deleted');
    const session = host.open(scopedId(this.#state.id.toString()), init);
    this.#adopt(session);
    // A new session is idle until its first request: the alarm starts counting now.
    this.idle(session);
    return session;
  }

  get(id: string): Session | undefined {
    const session = this.#current();
    return session?.id === id ? session : undefined;
  }

  close(id: string, reason: AbortReasonType): boolean {
    const session = this.get(id);
    if (!session) return false;
    this.#end(session, reason);
    return true;
  }

  closeAll(reason: AbortReasonType): void {
    const session = this.#current();
    if (session) this.#end(session, reason);
  }

  forEach(fn: (session: Session) => void): void {
    const session = this.#current();
    if (session) fn(session);
  }

  /** SessionObserver: store the record (synchronous SQLite-backed KV, so no write is lost). */
  changed(session: Session): void {
    if (session !== this.#session) return;
    this.#state.storage.kv.put(RECORD, session.toRecord());
    this.#storedActive = session.lastActive;
  }

  /**
   * SessionObserver: the session went idle. No storage write per request: the alarm is set only
   * when none is pending as early (it re-checks `lastActive` when it fires), and `lastActive` is
   * stored only when it moved by a tenth of the timeout, so after a restart it is at most that
   * stale.
   */
  idle(session: Session): void {
    if (session !== this.#session) return;
    if (session.lastActive - this.#storedActive >= this.#idleMs / 10) this.changed(session);
    this.#alarm.request(session.lastActive + this.#idleMs);
  }

  /** The object's alarm (shared with a task store when one was given). */
  alarm(): Promise<void> {
    return this.#alarm.fire();
  }

  /** AlarmUser: reap the session if it is still idle, or tell when to check again. */
  due(now: number): number | undefined {
    const session = this.#current();
    // Busy: the next `idle()` asks for the alarm again.
    if (!session || session.active > 0) return undefined;
    const due = session.lastActive + this.#idleMs;
    if (now < due) return due;
    this.#reaped++;
    this.#end(session, 'session-expired');
    return undefined;
  }

  /** AlarmUser: whether a session's record is stored. */
  get holding(): boolean {
    return this.#current() !== undefined;
  }

  /** The live session, restored from storage on the first call after a (re)start. */
  #current(): Session | undefined {
    if (!this.#loaded) {
      this.#loaded = true;
      const record = this.#state.storage.kv.get<SessionRecord>(RECORD);
      if (record && this.#host) {
        this.#adopt(this.#host.restore(record));
        this.#storedActive = record.lastActive;
      }
    }
    return this.#session;
  }

  #bound(): SessionHost {
    if (!this.#host) throw new Error('The session manager is not bound to a handler');
    return this.#host;
  }

  #adopt(session: Session): void {
    this.#session = session;
    this.#loaded = true;
    session.observer = this;
  }

  #end(session: Session, reason: AbortReasonType): void {
    this.#session = undefined;
    session.observer = undefined;
    // The handler ends it (abort, dispose, hooks, its events dropped), then nothing of it is left.
    this.#host?.end(session, reason);
    this.#state.storage.kv.delete(RECORD);
    // Nothing of it is left; the whole storage goes unless tasks are still kept here.
    this.#alarm.released();
  }
}
