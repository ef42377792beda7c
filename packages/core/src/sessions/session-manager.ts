/**
 * The one table of live legacy sessions (rmcp's `SessionManager`): it opens and restores them,
 * wires their observer, ends them through the handler's one end sequence, keeps the caps and the
 * idle timeout, and keeps their records in a `SessionStore` when it is given one.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import { SessionLimitError } from '../errors.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import type { Session, SessionObserver } from './session.ts';
import type { SessionHolder, SessionHost } from './session-seams.ts';
import type { SessionLoad, SessionStore, SessionStoreHost } from './session-store.ts';
import type { SessionChange, SessionInit } from './session-types.ts';

export interface SessionManagerOptions {
  /**
   * Where the sessions' records are kept, so they go on after a restart (a Durable Object's
   * storage, a database). @default none: sessions live in this process only
   */
  store?: SessionStore;
  /** A session with no in-flight request and no open stream for this long is closed. @default 600000 (10 min) */
  idleTimeoutMs?: number;
  /**
   * Live sessions at most. At the cap, a new session evicts the longest-idle one that has no
   * request in flight and no open stream (reason `session-evicted`); only when every session is
   * busy is `initialize` answered 503 with `Retry-After`. @default 10000
   */
  maxSessions?: number;
  /**
   * Live sessions of one principal (the session's owner, else the client address that opened
   * it) at most. A principal at its quota evicts its own longest-idle session, never another's;
   * when every one of its sessions is busy, its `initialize` is answered 429. @default 1000
   */
  maxSessionsPerPrincipal?: number;
}

let sweep: (manager: SessionManager) => void;

const UNBOUND: SessionHost = {
  open() {
    throw new Error('The session manager is not bound to a handler (pass it to createMcpHandler)');
  },
  restore() {
    throw new Error('The session manager is not bound to a handler (pass it to createMcpHandler)');
  },
  end() {},
  release() {},
};

function ignore(): void {}

/**
 * Legacy sessions with an idle timeout and caps, in this process or over a `SessionStore`. Pass
 * one to `createMcpHandler({ sessions })`; it is also the operator's handle (`close`, `closeAll`,
 * `forEach`, `size`).
 *
 * Without a store, one sweep timer serves all sessions (unref'd, and only while sessions exist),
 * so idle sessions cost no timer each and nothing keeps a process alive. A session with an
 * in-flight request or an open stream is never idle. The cap is fair: one client opening
 * sessions as fast as it can does not lock everyone else out; each new session evicts the
 * longest-idle one instead, and a principal at its quota evicts only its own.
 */
export class SessionManager implements SessionHolder, SessionObserver, SessionStoreHost {
  /** In the order the sessions last went idle (or were opened): the first idle one is the oldest. */
  readonly #sessions = new Map<string, Session>();
  readonly #store: SessionStore | undefined;
  /** The record versions held, for a shared store (every request revalidates with it). */
  readonly #versions: Map<string, number> | undefined;
  /** Loads under way, so two requests for a session not held yet restore it once. */
  readonly #loading = new Map<string, Promise<Session | undefined>>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #maxPerPrincipal: number;
  /** Live sessions per quota key (only keys with sessions). */
  readonly #perPrincipal = new Map<string, number>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #host: SessionHost = UNBOUND;
  #reaped = 0;

  constructor(options: SessionManagerOptions = {}) {
    this.#store = options.store;
    this.#versions = options.store?.shared ? new Map() : undefined;
    this.#idleMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
    this.#max = options.maxSessions ?? DEFAULTS.maxSessions;
    this.#maxPerPrincipal = options.maxSessionsPerPrincipal ?? DEFAULTS.maxSessionsPerPrincipal;
    this.#store?.bind?.(this);
  }

  get reaped(): number {
    return this.#reaped;
  }

  get size(): number {
    return this.#sessions.size;
  }

  bind(host: SessionHost): void {
    this.#host = host;
  }

  create(init: SessionInit): Session | Promise<Session> {
    const key = init.owner ?? init.client ?? '';
    if ((this.#perPrincipal.get(key) ?? 0) >= this.#maxPerPrincipal) {
      // A principal at its quota makes room among its own sessions only.
      if (!this.#evictOne(key)) throw new SessionLimitError(this.#maxPerPrincipal, 1, 'principal');
    } else if (this.#sessions.size >= this.#max && !this.#evictOne(undefined)) {
      // Every session is busy; one may be evictable as soon as any request ends.
      throw new SessionLimitError(this.#max, 1);
    }
    const store = this.#store;
    if (!store) return this.#opened(this.#host.open(crypto.randomUUID(), init), undefined);
    const id = store.create(init);
    return typeof id === 'string' ? this.#first(id, init) : id.then((id) => this.#first(id, init));
  }

  /** A store minted the id: the session opens, its first record is written and awaited. */
  #first(id: string, init: SessionInit): Session | Promise<Session> {
    const session = this.#opened(this.#host.open(id, init), 0);
    const written = this.#store?.write(session.toRecord(), undefined);
    // A new session is idle until its first request: its expiry counts from now.
    this.#store?.touch?.(id, session.lastActive, session.lastActive + this.#idleMs);
    return written instanceof Promise ? written.then(() => session) : session;
  }

  get(id: string): Session | undefined | Promise<Session | undefined> {
    const session = this.#sessions.get(id);
    if (this.#store === undefined || (session && !this.#versions)) return session;
    const loading = this.#loading.get(id);
    if (loading) return loading;
    const found = this.#store.load(id, this.#versions?.get(id));
    if (!(found instanceof Promise)) return this.#loaded(id, found);
    const load = found.then(
      (found) => this.#loaded(id, found),
      (error: unknown) => {
        this.#loading.delete(id);
        throw error;
      },
    );
    this.#loading.set(id, load);
    return load;
  }

  #loaded(id: string, found: SessionLoad): Session | undefined {
    this.#loading.delete(id);
    const held = this.#sessions.get(id);
    if (found === 'gone') {
      // Ended elsewhere (a shared store): what this instance holds of it goes.
      if (held) this.#forget(held, 'session-deleted', false);
      return undefined;
    }
    if (found === 'unchanged') return held;
    if (held) {
      // Its own writes in flight decide; another holder's change applies otherwise.
      if (held.writes === undefined) held.refresh(found.record);
      this.#versions?.set(id, found.version);
      return held;
    }
    return this.#opened(this.#host.restore(found.record), found.version);
  }

  close(id: string, reason: AbortReasonType): boolean | Promise<boolean> {
    const session = this.#sessions.get(id);
    if (session) {
      this.#forget(session, reason, true);
      return true;
    }
    if (!this.#store) return false;
    // A stored session this process does not hold (after a restart): restored to be ended, so
    // its hooks run and its record goes.
    const found = this.get(id);
    const end = (session: Session | undefined): boolean => {
      if (session) this.#forget(session, reason, true);
      return session !== undefined;
    };
    return found instanceof Promise ? found.then(end) : end(found);
  }

  closeAll(reason: AbortReasonType): void {
    for (const session of [...this.#sessions.values()]) this.#forget(session, reason, true);
  }

  /**
   * The handler closes. Without a store every session ends (reason `shutdown`, hooks run); over
   * a store they are let go and their records stay for the next start, and the store closes.
   */
  shutdown(): void | Promise<void> {
    if (!this.#store) return this.closeAll('shutdown');
    for (const session of [...this.#sessions.values()]) this.#forget(session, 'shutdown', false);
    return this.#store.close?.();
  }

  peek(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  forEach(fn: (session: Session) => void): void {
    for (const session of this.#sessions.values()) fn(session);
  }

  /** SessionObserver: the record is written (the request's answer waits for a promise). */
  changed(session: Session, change?: SessionChange): void | Promise<void> {
    if (this.#sessions.get(session.id) !== session) return;
    return this.#store?.write(session.toRecord(), change);
  }

  /** SessionObserver: the session went idle; it moves to the end of the eviction order. */
  idle(session: Session): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
    this.#store?.touch?.(session.id, session.lastActive, session.lastActive + this.#idleMs);
  }

  /** SessionStoreHost: the store's expiry is due. */
  expired(id: string): number | undefined | Promise<number | undefined> {
    const check = (session: Session | undefined): number | undefined => {
      if (!session || session.active > 0) return undefined;
      // A shared store keeps the deadline of every instance's use; this one's view may be older.
      const due = this.#store?.shared ? 0 : session.lastActive + this.#idleMs;
      if (Date.now() < due) return due;
      this.#reaped++;
      this.#forget(session, 'session-expired', true);
      return undefined;
    };
    const found = this.get(id);
    return found instanceof Promise ? found.then(check) : check(found);
  }

  /** SessionStoreHost: the store ends a session itself. */
  end(id: string, reason: AbortReasonType): void | Promise<void> {
    const closed = this.close(id, reason);
    if (closed instanceof Promise) return closed.then(ignore);
  }

  #opened(session: Session, version: number | undefined): Session {
    session.observer = this;
    this.#sessions.set(session.id, session);
    if (version !== undefined) this.#versions?.set(session.id, version);
    this.#perPrincipal.set(session.quotaKey, (this.#perPrincipal.get(session.quotaKey) ?? 0) + 1);
    const timed = this.#idleMs > 0 && Number.isFinite(this.#idleMs);
    if (!this.#sweeper && timed && !this.#store?.touch) {
      // Reaped between idleTimeout and idleTimeout × 1.1 after the last activity.
      this.#sweeper = unrefTimer(
        setInterval(sweep, Math.max(10, Math.min(this.#idleMs / 10, 60_000)), this),
      );
    }
    return session;
  }

  /**
   * Ends the longest-idle session with nothing in flight (of principal `key` only, when given);
   * false when every such session is busy.
   */
  #evictOne(key: string | undefined): boolean {
    for (const session of this.#sessions.values()) {
      if (session.active === 0 && (key === undefined || session.quotaKey === key)) {
        this.#forget(session, 'session-evicted', true);
        return true;
      }
    }
    return false;
  }

  static {
    // The sweep timer's callback: module-level (no closure per manager), yet it reaches the
    // manager's private state, which stays off the public surface.
    sweep = (manager) => manager.#sweep(Date.now());
  }

  #sweep(now: number): void {
    for (const session of [...this.#sessions.values()]) {
      if (session.active === 0 && now - session.lastActive >= this.#idleMs) {
        this.#reaped++;
        this.#forget(session, 'session-expired', true);
      }
    }
  }

  /**
   * This table lets go of a session: it ends for good (`ended`: hooks, record deleted), or only
   * here (shutdown over a store, ended by another holder).
   */
  #forget(session: Session, reason: AbortReasonType, ended: boolean): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.#versions?.delete(session.id);
    session.observer = undefined;
    const left = (this.#perPrincipal.get(session.quotaKey) ?? 1) - 1;
    if (left <= 0) this.#perPrincipal.delete(session.quotaKey);
    else this.#perPrincipal.set(session.quotaKey, left);
    if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    if (!ended) {
      this.#host.release(session, reason);
      return;
    }
    this.#host.end(session, reason);
    try {
      // A store that fails to delete leaves a record its expiry removes later; the session is
      // over here either way, and the rejection must not go unhandled (that ends a Node process).
      const deleted = this.#store?.delete(session.id, reason);
      if (deleted instanceof Promise) deleted.catch(ignore);
    } catch {}
  }
}
