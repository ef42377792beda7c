import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { Session, type SessionInit } from './session.ts';

/** The manager is full: the initialize is answered 503 with Retry-After. */
export class SessionLimitError extends Error {
  override readonly name = 'SessionLimitError';
  readonly retryAfterSeconds: number;
  constructor(limit: number, retryAfterSeconds: number) {
    super(`Too many sessions (limit ${limit})`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Told when a session ends, with why. */
export type SessionClosedListener = (session: Session, reason: AbortReasonType) => void;

/**
 * Where legacy sessions live (rmcp's split: the manager owns live sessions, an EventStore owns
 * their replayable events). `MemorySessionManager` is the embedded default; a Durable Object
 * holds one session behind the same interface.
 */
export interface SessionManager {
  /** Creates and registers a session under `parent`; throws SessionLimitError when full. */
  create(parent: Scope, init: SessionInit): Session;
  get(id: string): Session | undefined;
  /** Ends a session with `reason` (DELETE, idle, operator); false when unknown. */
  close(id: string, reason: AbortReasonType): boolean;
  /** Ends every session with `reason` (shutdown). */
  closeAll(reason: AbortReasonType): void;
  /** Calls `fn` for every live session (fan-out of server notifications). */
  forEach(fn: (session: Session) => void): void;
  readonly size: number;
  /** Sessions ended by the idle timeout so far. */
  readonly reaped: number;
  /**
   * The handler registers here: `root` is the scope sessions hang under (a durable manager
   * restoring a session needs it), `closed` runs once per ended session.
   */
  bind(root: Scope, closed: SessionClosedListener): void;
}

export interface MemorySessionManagerOptions {
  /** A session with no in-flight request and no open stream for this long is closed. @default 600000 (10 min) */
  idleTimeoutMs?: number;
  /** Live sessions at most; `initialize` beyond it gets 503 + Retry-After. @default 10000 */
  maxSessions?: number;
}

/**
 * In-memory sessions with an idle timeout and a cap. One sweep timer serves all sessions (unref'd,
 * and only while sessions exist), so idle sessions cost no timer each and nothing keeps a process
 * alive. A session with an in-flight request or an open stream is never idle.
 */
export class MemorySessionManager implements SessionManager {
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #max: number;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed: SessionClosedListener | undefined;
  reaped = 0;

  constructor(options: MemorySessionManagerOptions = {}) {
    this.#idleMs = options.idleTimeoutMs ?? 600_000;
    this.#max = options.maxSessions ?? 10_000;
  }

  get size(): number {
    return this.#sessions.size;
  }

  bind(_root: Scope, closed: SessionClosedListener): void {
    this.#closed = closed;
  }

  create(parent: Scope, init: SessionInit): Session {
    if (this.#sessions.size >= this.#max) {
      throw new SessionLimitError(
        this.#max,
        Math.max(1, Math.ceil(Math.min(this.#idleMs, 60_000) / 1000)),
      );
    }
    const session = new Session(parent, crypto.randomUUID(), init);
    this.#sessions.set(session.id, session);
    if (!this.#sweeper && this.#idleMs > 0 && Number.isFinite(this.#idleMs)) {
      // Reaped between idleTimeout and idleTimeout × 1.1 after the last activity.
      this.#sweeper = setInterval(sweep, Math.max(10, Math.min(this.#idleMs / 10, 60_000)), this);
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
    return session;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  close(id: string, reason: AbortReasonType): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#end(session, reason);
    return true;
  }

  closeAll(reason: AbortReasonType): void {
    for (const session of [...this.#sessions.values()]) this.#end(session, reason);
  }

  forEach(fn: (session: Session) => void): void {
    for (const session of this.#sessions.values()) fn(session);
  }

  /** @internal one pass of the idle sweep. */
  sweep(now: number): void {
    for (const session of [...this.#sessions.values()]) {
      if (session.active === 0 && now - session.lastActive >= this.#idleMs) {
        this.reaped++;
        this.#end(session, 'session-expired');
      }
    }
  }

  #end(session: Session, reason: AbortReasonType): void {
    this.#sessions.delete(session.id);
    session.abort(reason);
    session.dispose();
    if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    this.#closed?.(session, reason);
  }
}

function sweep(manager: MemorySessionManager): void {
  manager.sweep(Date.now());
}
