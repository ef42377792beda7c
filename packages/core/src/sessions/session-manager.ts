/**
 * The one table of live legacy sessions (rmcp's `SessionManager`): it opens and restores them,
 * wires their observer, ends them through the handler's one end sequence, keeps the caps and the
 * idle timeout, and keeps their records in a `SessionStore` when it is given one.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import type { Session, SessionObserver, SessionRecord } from './session.ts';
import { type SessionManagerOptions, UNBOUND } from './session-manager-options.ts';
import type { SessionCluster, SessionHolder, SessionHost } from './session-seams.ts';
import type { SessionLoad, SessionStore, SessionStoreHost } from './session-store.ts';
import { SessionTable } from './session-table.ts';
import type { SessionChange, SessionInit } from './session-types.ts';

export type { SessionManagerOptions } from './session-manager-options.ts';

let sweep: (manager: SessionManager) => void;

/** One sweep turn ends at most this many sessions, in at most `SWEEP_SLICE_MS` (`onClose` hooks can be slow). */
const SWEEP_BATCH = 1_000;
const SWEEP_SLICE_MS = 4;
const SWEEP_CHECK = 32;

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
  readonly #table: SessionTable;
  readonly #store: SessionStore | undefined;
  readonly #shared: boolean;
  /** Loads under way, so two requests for a session not held yet restore it once. */
  readonly #loading = new Map<string, Promise<Session | undefined>>();
  readonly #idleMs: number;
  readonly cluster: SessionCluster | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #host: SessionHost = UNBOUND;
  #reaped = 0;

  constructor(options: SessionManagerOptions = {}) {
    this.#store = options.store;
    this.#shared = options.store?.shared === true;
    this.cluster = options.cluster;
    this.#idleMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
    this.#table = new SessionTable(options, this.#shared);
    this.#store?.bind?.(this);
  }

  get reaped(): number {
    return this.#reaped;
  }

  get size(): number {
    return this.#table.size;
  }

  bind(host: SessionHost): void {
    this.#host = host;
  }

  create(init: SessionInit): Session | Promise<Session> {
    // A shared store keeps the caps of every instance (its `create` refuses).
    if (!this.#shared) {
      const evicted = this.#table.makeRoom(init.owner ?? init.client ?? '');
      if (evicted) this.#endLater(evicted, 'session-evicted');
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
    const session = this.#table.use(id);
    if (this.#store === undefined || (session && !this.#shared)) return session;
    const loading = this.#loading.get(id);
    if (loading) return loading;
    const found = this.#store.load(id, this.#table.versionOf(id));
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

  #loaded(id: string, found: SessionLoad): Session | undefined | Promise<Session | undefined> {
    this.#loading.delete(id);
    const held = this.#table.get(id);
    if (found === 'gone') {
      // Ended elsewhere (a shared store): what this instance holds of it goes.
      if (held) this.#let(held, 'session-deleted');
      return undefined;
    }
    // Unchanged, unless the copy was dropped meanwhile: then the record is read again.
    if (found === 'unchanged') {
      if (held) return held;
      this.#table.forgetVersion(id);
      return this.get(id);
    }
    if (held) {
      // Its own writes in flight decide; another holder's change applies otherwise.
      if (held.writes === undefined) held.refresh(found.record);
      this.#table.setVersion(id, found.version);
      return held;
    }
    return this.#opened(this.#host.restore(found.record), found.version);
  }

  close(id: string, reason: AbortReasonType): boolean | Promise<boolean> {
    const end = (session: Session | undefined): boolean | Promise<boolean> => {
      if (!session) return false;
      const ended = this.#end(session, reason);
      return ended instanceof Promise ? ended.then(() => true) : true;
    };
    const held = this.#table.get(id);
    if (held || !this.#store) return end(held);
    // A stored session this process does not hold (after a restart): restored to be ended, so
    // its hooks run and its record goes.
    const found = this.get(id);
    return found instanceof Promise ? found.then(end) : end(found);
  }

  closeAll(reason: AbortReasonType): void | Promise<void> {
    const cleared = this.#store?.clear?.(reason);
    const endHeld = (): void | Promise<void> => {
      const ending = this.#table.all().map((session) => this.#end(session, reason));
      if (ending.some((end) => end instanceof Promise)) return Promise.all(ending).then(ignore);
    };
    return cleared ? cleared.then(endHeld) : endHeld();
  }

  /**
   * The handler closes. Without a store every session ends (reason `shutdown`, hooks run); over
   * a store they are let go and their records stay for the next start or the other instances,
   * and the store closes.
   */
  shutdown(): void | Promise<void> {
    if (!this.#store) return this.closeAll('shutdown');
    for (const session of this.#table.all()) this.#let(session, 'shutdown');
    return this.#store.close?.();
  }

  peek(id: string): Session | undefined {
    return this.#table.get(id);
  }

  forEach(fn: (session: Session) => void): void {
    this.#table.forEach(fn);
  }

  /** SessionObserver: the record is written (the request's answer waits for a promise). */
  changed(session: Session, change?: SessionChange): void | Promise<void> {
    // A copy dropped while a request still held it is kept again, unless another took its place.
    if (!this.#table.holds(session) && !this.#table.readopt(session)) return;
    return this.#store?.write(session.toRecord(), change);
  }

  /** SessionObserver: the session went idle; it moves to the end of the eviction order. */
  idle(session: Session): void {
    if (!this.#table.holds(session)) return;
    this.#table.wentIdle(session);
    this.#store?.touch?.(session.id, session.lastActive, session.lastActive + this.#idleMs);
  }

  /** SessionStoreHost: the store's expiry is due. */
  expired(id: string): number | undefined | Promise<number | undefined> {
    const check = (session: Session | undefined): number | undefined => {
      if (!session || session.active > 0) return undefined;
      const due = session.lastActive + this.#idleMs;
      if (Date.now() < due) return due;
      this.#reaped++;
      this.#endLater(session, 'session-expired');
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

  /** SessionStoreHost: the store ended it (its record is gone): the end runs here, once. */
  ended(record: SessionRecord, reason: AbortReasonType): void {
    if (reason === 'session-expired') this.#reaped++;
    const held = this.#table.get(record.id);
    if (held) {
      if (this.#drop(held)) this.#host.end(held, reason);
      return;
    }
    this.cluster?.forget?.(record.id);
    this.#host.end(this.#host.restore(record), reason);
  }

  /** SessionStoreHost: it ended on another instance. */
  gone(id: string, reason: AbortReasonType): void {
    const held = this.#table.get(id);
    if (held) this.#let(held, reason);
  }

  /** SessionStoreHost: what a shared store's heartbeat refreshes. */
  forEachHeld(fn: (id: string, busy: boolean) => void): void {
    for (const session of this.#table.all()) fn(session.id, session.active > 0);
  }

  #opened(session: Session, version: number | undefined): Session {
    session.observer = this;
    this.#table.add(session, version);
    const timed = this.#idleMs > 0 && Number.isFinite(this.#idleMs);
    if (!this.#sweeper && timed && !this.#store?.touch && !this.#shared) {
      // Reaped between idleTimeout and idleTimeout × 1.1 after the last activity.
      this.#sweeper = unrefTimer(
        setInterval(sweep, Math.max(10, Math.min(this.#idleMs / 10, 60_000)), this),
      );
    }
    return session;
  }

  static {
    // The sweep timer's callback: module-level (no closure per manager), yet it reaches the
    // manager's private state, which stays off the public surface.
    sweep = (manager) => manager.#sweep(Date.now());
  }

  #sweep(now: number): void {
    const due = this.#table.due(now, this.#idleMs, SWEEP_BATCH);
    let ended = 0;
    while (ended < due.length) {
      this.#reaped++;
      this.#endLater(due[ended++] as Session, 'session-expired');
      if (ended % SWEEP_CHECK === 0 && Date.now() - now >= SWEEP_SLICE_MS) break;
    }
    // More may be due (a mass expiry, or a slice cut short): the rest runs in turns of its own, so
    // ending a million sessions never holds the event loop for long.
    if (ended < due.length || due.length === SWEEP_BATCH) unrefTimer(setTimeout(sweep, 0, this));
  }

  /** Takes the session out of the table; false when it was not there (any more). */
  #drop(session: Session): boolean {
    if (!this.#table.drop(session)) return false;
    if (this.#table.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    return true;
  }

  /** `#end` where nobody waits: a store that fails leaves the record to its expiry. */
  #endLater(session: Session, reason: AbortReasonType): void {
    const ended = this.#end(session, reason);
    if (ended instanceof Promise) ended.catch(ignore);
  }

  /**
   * Ends the session for good: its record goes first, then the end runs (hooks, events dropped).
   * A shared store that finds the record gone already (another instance ended it meanwhile) has
   * it only let go here; one that fails leaves the session as it was.
   */
  #end(session: Session, reason: AbortReasonType): void | Promise<void> {
    const deleted = this.#store?.delete(session.id, reason);
    const finish = (found: boolean | undefined): void => {
      if (!this.#drop(session)) return;
      if (found === false && this.#shared) this.#host.release(session, reason);
      else this.#host.end(session, reason);
    };
    if (deleted instanceof Promise) return deleted.then(finish);
    finish(deleted);
  }

  /** Lets go of a session here without ending it (shutdown over a store, ended elsewhere). */
  #let(session: Session, reason: AbortReasonType): void {
    if (this.#drop(session)) this.#host.release(session, reason);
  }
}
