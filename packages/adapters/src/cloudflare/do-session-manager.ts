import {
  type AbortReasonType,
  type Scope,
  Session,
  type SessionClosedListener,
  type SessionInit,
  type SessionManager,
  type SessionObserver,
  type SessionRecord,
} from '@edge-mcp/core';
import type { DurableObjectState } from './workers-types.ts';

const RECORD = 'mcp-session';

/**
 * The SessionManager inside one Durable Object: it holds that object's single session, keeps its
 * record in the object's storage on every durable change (so the session goes on after eviction
 * or restart), and reaps it with an alarm when it has been idle for `idleTimeoutMs`.
 *
 * The session id is `<object id>.<random token>`: the Worker routes by the object id, and the
 * token (kept in storage) makes the id unguessable whatever the object id is.
 */
export class DurableObjectSessionManager implements SessionManager, SessionObserver {
  readonly #state: DurableObjectState;
  readonly #idleMs: number;
  #root: Scope | undefined;
  #closed: SessionClosedListener | undefined;
  #session: Session | undefined;
  #loaded = false;
  reaped = 0;

  constructor(state: DurableObjectState, options: { idleTimeoutMs?: number } = {}) {
    this.#state = state;
    this.#idleMs = options.idleTimeoutMs ?? 600_000;
  }

  get size(): number {
    return this.#current() ? 1 : 0;
  }

  bind(root: Scope, closed: SessionClosedListener): void {
    this.#root = root;
    this.#closed = closed;
  }

  create(parent: Scope, init: SessionInit): Session {
    const previous = this.#current();
    if (previous) this.#end(previous, 'session-deleted');
    const token = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join('');
    const session = new Session(parent, `${this.#state.id.toString()}.${token}`, init);
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
    if (session === this.#session) this.#state.storage.kv.put(RECORD, session.toRecord());
  }

  /** SessionObserver: schedule the idle check. */
  idle(session: Session): void {
    if (session !== this.#session) return;
    this.changed(session);
    this.#state.storage.setAlarm(session.lastActive + this.#idleMs).catch(() => {});
  }

  /** The object's alarm: reap the session if it is still idle, or check again later. */
  async alarm(): Promise<void> {
    const session = this.#current();
    if (!session || session.active > 0) return;
    const due = session.lastActive + this.#idleMs;
    if (Date.now() >= due) {
      this.reaped++;
      this.#end(session, 'session-expired');
    } else {
      await this.#state.storage.setAlarm(due);
    }
  }

  /** The live session, restored from storage on the first call after a (re)start. */
  #current(): Session | undefined {
    if (!this.#loaded) {
      this.#loaded = true;
      const record = this.#state.storage.kv.get<SessionRecord>(RECORD);
      if (record && this.#root) this.#adopt(Session.restore(this.#root, record));
    }
    return this.#session;
  }

  #adopt(session: Session): void {
    this.#session = session;
    this.#loaded = true;
    session.observer = this;
  }

  #end(session: Session, reason: AbortReasonType): void {
    this.#session = undefined;
    session.observer = undefined;
    session.abort(reason);
    session.dispose();
    // Listeners first (the handler drops the session's events), then nothing of it is left.
    this.#closed?.(session, reason);
    this.#state.storage.kv.delete(RECORD);
    this.#state.storage.deleteAlarm().catch(() => {});
    this.#state.storage.deleteAll().catch(() => {});
  }
}
