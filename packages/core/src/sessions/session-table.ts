/**
 * The `SessionManager`'s map of live sessions: in the order they last went idle (the first idle
 * one is the eviction candidate), counted per principal, with the record versions a shared store
 * revalidates against, and bounded for a shared store (idle copies past the bound are dropped,
 * never ended: the next request rebuilds one).
 *
 * The order is a list through the sessions themselves (`idlePrev`, `idleNext`), and the ids are a
 * `ShardedMap`: a `Map` in insertion order would serve both, but each use moves a session (a
 * delete and a set), a mass expiry leaves the walk from its start crossing deleted slots, and a
 * table of a million rehashes whole as it shrinks (tens of milliseconds for one delete).
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import { SessionLimitError } from '../errors.ts';
import type { Session } from './session.ts';
import type { SessionManagerOptions } from './session-manager-options.ts';
import type { SessionCluster } from './session-seams.ts';
import { ShardedMap } from './sharded-map.ts';

/** Whether dropping the copy would lose something live here. */
function pinned(session: Session): boolean {
  return (
    session.active > 0 ||
    session.standalone !== undefined ||
    session.writes !== undefined ||
    session.hooked
  );
}

export class SessionTable {
  readonly #sessions = new ShardedMap<Session>();
  /** The idle order: the longest idle first. */
  #first: Session | undefined;
  #last: Session | undefined;
  /** Live sessions per quota key (only keys with sessions). */
  readonly #perPrincipal = new Map<string, number>();
  /** Record versions, for a shared store; undefined otherwise. */
  readonly #versions: Map<string, number> | undefined;
  /** Copies kept at most, for a shared store. */
  readonly #maxReplicas: number | undefined;
  readonly #cluster: SessionCluster | undefined;

  readonly #max: number;
  readonly #maxPerPrincipal: number;

  /** `shared`: the store keeps the caps; the table bounds its copies (`maxReplicas`). */
  constructor(options: SessionManagerOptions, shared: boolean) {
    this.#max = options.maxSessions ?? DEFAULTS.maxSessions;
    this.#maxPerPrincipal = options.maxSessionsPerPrincipal ?? DEFAULTS.maxSessionsPerPrincipal;
    this.#maxReplicas = shared ? (options.maxReplicas ?? DEFAULTS.maxSessions) : undefined;
    this.#versions = shared ? new Map() : undefined;
    this.#cluster = options.cluster;
  }

  /**
   * Room for a new session of quota key `key`: the session to evict to make it (the longest-idle
   * with nothing in flight; of `key` only when it is at its quota), if one must go; throws
   * `SessionLimitError` when every candidate is busy.
   */
  makeRoom(key: string): Session | undefined {
    if (this.countOf(key) >= this.#maxPerPrincipal) {
      // A principal at its quota makes room among its own sessions only.
      const own = this.oldestIdle(key);
      if (!own) throw new SessionLimitError(this.#maxPerPrincipal, 1, 'principal');
      return own;
    }
    if (this.#sessions.size < this.#max) return undefined;
    // Every session is busy; one may be evictable as soon as any request ends.
    const any = this.oldestIdle(undefined);
    if (!any) throw new SessionLimitError(this.#max, 1);
    return any;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** `get`, counting it as used when copies are bounded (the least recently used go first). */
  use(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    if (session && this.#maxReplicas !== undefined) this.wentIdle(session);
    return session;
  }

  holds(session: Session): boolean {
    return this.#sessions.get(session.id) === session;
  }

  countOf(key: string): number {
    return this.#perPrincipal.get(key) ?? 0;
  }

  versionOf(id: string): number | undefined {
    return this.#versions?.get(id);
  }

  setVersion(id: string, version: number): void {
    this.#versions?.set(id, version);
  }

  forgetVersion(id: string): void {
    this.#versions?.delete(id);
  }

  /** Every session, longest idle first (a copy: the caller may end them as it goes). */
  all(): Session[] {
    const all: Session[] = [];
    for (let session = this.#first; session !== undefined; session = session.idleNext)
      all.push(session);
    return all;
  }

  /**
   * Up to `limit` sessions with nothing in flight whose idle time reached `idleMs` by `now`,
   * longest idle first. The table keeps sessions in the order they last went idle (a new one
   * counts as going idle when it opens), so the walk stops at the first idle one not yet due:
   * a sweep costs what it ends and the busy sessions before it, not the whole table.
   */
  due(now: number, idleMs: number, limit: number): Session[] {
    const due: Session[] = [];
    for (let session = this.#first; session !== undefined; session = session.idleNext) {
      if (session.active > 0) continue;
      if (now - session.lastActive < idleMs || due.length === limit) break;
      due.push(session);
    }
    return due;
  }

  forEach(fn: (session: Session) => void): void {
    for (const session of this.all()) fn(session);
  }

  add(session: Session, version: number | undefined): void {
    const ids = this.#cluster?.ids;
    if (ids) session.ids = ids;
    this.#cluster?.adopted?.(session);
    this.#keep(session);
    if (version !== undefined) this.#versions?.set(session.id, version);
  }

  /** A dropped copy a request still used changed: kept again unless another took its place. */
  readopt(session: Session): boolean {
    if (this.#maxReplicas === undefined || session.aborted || this.#sessions.has(session.id))
      return false;
    this.#keep(session);
    return true;
  }

  /** Moves the session to the end of the order (the most recently idle or used). */
  wentIdle(session: Session): void {
    if (this.#last === session) return;
    this.#unlink(session);
    this.#append(session);
  }

  /** The longest-idle session with nothing in flight (of quota key `key` only, when given). */
  oldestIdle(key: string | undefined): Session | undefined {
    for (let session = this.#first; session !== undefined; session = session.idleNext)
      if (session.active === 0 && (key === undefined || session.quotaKey === key)) return session;
    return undefined;
  }

  /** Takes the session out; false when it is not the one held for its id. */
  drop(session: Session): boolean {
    if (this.#sessions.get(session.id) !== session) return false;
    this.#silentDrop(session);
    session.observer = undefined;
    this.#cluster?.forget?.(session.id);
    return true;
  }

  #keep(session: Session): void {
    const before = this.#sessions.get(session.id);
    if (before !== undefined) this.#unlink(before);
    this.#sessions.set(session.id, session);
    this.#append(session);
    this.#perPrincipal.set(session.quotaKey, (this.#perPrincipal.get(session.quotaKey) ?? 0) + 1);
    const max = this.#maxReplicas;
    if (max === undefined || this.#sessions.size <= max) return;
    // Least recently used first; a copy that holds something live here stays.
    for (let held = this.#first; held !== undefined; ) {
      if (this.#sessions.size <= max) return;
      const next = held.idleNext;
      if (held !== session && !pinned(held)) this.#silentDrop(held);
      held = next;
    }
  }

  #append(session: Session): void {
    session.idlePrev = this.#last;
    session.idleNext = undefined;
    if (this.#last === undefined) this.#first = session;
    else this.#last.idleNext = session;
    this.#last = session;
  }

  #unlink(session: Session): void {
    const { idlePrev: prev, idleNext: next } = session;
    if (prev === undefined) {
      if (this.#first === session) this.#first = next;
    } else prev.idleNext = next;
    if (next === undefined) {
      if (this.#last === session) this.#last = prev;
    } else next.idlePrev = prev;
    session.idlePrev = undefined;
    session.idleNext = undefined;
  }

  /** A copy goes from the cache only: its session goes on (and its observer, for a late change). */
  #silentDrop(session: Session): void {
    this.#sessions.delete(session.id);
    this.#unlink(session);
    this.#versions?.delete(session.id);
    const left = (this.#perPrincipal.get(session.quotaKey) ?? 1) - 1;
    if (left <= 0) this.#perPrincipal.delete(session.quotaKey);
    else this.#perPrincipal.set(session.quotaKey, left);
  }
}
