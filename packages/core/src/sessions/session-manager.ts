import { DEFAULTS } from '../defaults.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type {
  ClientResponse,
  RemoteStreamLink,
  Session,
  SessionInit,
  SessionObserver,
  SessionRecord,
} from './session.ts';

export { StoreUnavailableError } from '../errors.ts';

/**
 * The manager is full and no session can make room (every one has a request in flight or an open
 * stream): the initialize is answered 503 with Retry-After.
 */
export class SessionLimitError extends Error {
  override readonly name = 'SessionLimitError';
  readonly retryAfterSeconds: number;
  /** Whose limit: the manager's (503), or the asking principal's own quota (429). */
  readonly scope: 'server' | 'principal';
  constructor(limit: number, retryAfterSeconds: number, scope: 'server' | 'principal' = 'server') {
    super(
      scope === 'server'
        ? `Too many sessions (limit ${limit})`
        : `This client has ${limit} sessions, every one busy`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
    this.scope = scope;
  }
}

/**
 * What the handler lends its session manager when it binds it: the only way to make session
 * objects (they hang under the handler's cancellation tree, which a manager never sees), and
 * whom to tell when one ends.
 */
export interface SessionHost {
  /** A new live session object with this id (registered nowhere yet). */
  open(id: string, init: SessionInit): Session;
  /** A live session object rebuilt from its stored record (after a restart). */
  restore(record: SessionRecord): Session;
  /**
   * Ends the session for good, once per ended session, by the instance that ended it: its
   * requests and streams are aborted with `reason`, the object disposed, then the hooks run
   * (`onSessionClose`) and its events are dropped. A manager only forgets it (its maps, its
   * record); the cancellation tree is the host's.
   */
  end(session: Session, reason: AbortReasonType): void;
  /**
   * Lets go of a live session object without the session ending here (it ended on another
   * instance, or this instance shuts down): its requests and streams are aborted with `reason`
   * and the object disposed; only local effects run (its session-bound task handlers here are
   * cancelled, unless `shutdown`). Never for a session also passed to `end`.
   */
  release(session: Session, reason: AbortReasonType): void;
}

/**
 * Where a request, a server→client request or a stream of a session is held, when sessions span
 * instances: what the core asks once its local lookup missed. Absent in memory and in Durable
 * Objects (one holder per session).
 */
export interface SessionCluster {
  /** `notifications/cancelled` named a request that does not run here: abort it where it runs. */
  cancel(session: Session, requestId: RequestId): void;
  /** A response to a server→client request nothing here waits for: deliver it where it waits. */
  respond(session: Session, id: RequestId, response: ClientResponse): void;
  /**
   * A GET for stream `streamId` of `session` that this instance does not hold live (a request
   * stream minted elsewhere, or the standalone stream '0' homed elsewhere):
   * - a link: another instance holds it live; this instance relays it;
   * - `'local'`: nobody holds it live; serve it here (replay and end for a request stream; for
   *   the standalone stream this instance is its home from now on);
   * - `'orphaned'`: its holder is gone before the stream's final message.
   */
  link(
    session: Session,
    streamId: string,
    lastEventId: string | undefined,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'>;
}

/**
 * Where legacy sessions live (rmcp's split: the manager owns live sessions, an EventStore owns
 * their replayable events). `MemorySessionManager` is the embedded default; a Durable Object
 * holds one session behind the same interface. `create`, `get` and `close` may answer with a
 * promise (a manager backed by a remote store); the memory manager answers at once.
 */
export interface SessionManager {
  /** The handler binds itself once, before any other call. */
  bind(host: SessionHost): void;
  /** Creates and registers a session (through `host.open`); throws SessionLimitError when full. */
  create(init: SessionInit): Session | Promise<Session>;
  get(id: string): Session | undefined | Promise<Session | undefined>;
  /** Ends a session with `reason` (DELETE, idle, operator); false when unknown. */
  close(id: string, reason: AbortReasonType): boolean | Promise<boolean>;
  /**
   * Ends every session with `reason` (operator; shutdown when there is no `shutdown`): in a
   * cluster, every session of every instance.
   */
  closeAll(reason: AbortReasonType): void | Promise<void>;
  /**
   * This instance stops (`handler.close()`): end what it holds (requests, streams, with reason
   * `shutdown`, through `host.released`) but keep the sessions for the other instances. Without
   * it, `close()` calls `closeAll('shutdown')`.
   */
  shutdown?(): void | Promise<void>;
  /** The live session if this instance holds it, without a round trip (task status fan-out). */
  peek?(id: string): Session | undefined;
  /** Present when sessions span instances; absent in memory and Durable Objects. */
  readonly cluster?: SessionCluster;
  /** Calls `fn` for every live session this instance holds (fan-out of server notifications). */
  forEach(fn: (session: Session) => void): void;
  /** Live sessions this instance holds. */
  readonly size: number;
  /** Sessions ended by the idle timeout so far. */
  readonly reaped: number;
}

export interface MemorySessionManagerOptions {
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

let sweep: (manager: MemorySessionManager) => void;

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

/**
 * In-memory sessions with an idle timeout and a cap. One sweep timer serves all sessions (unref'd,
 * and only while sessions exist), so idle sessions cost no timer each and nothing keeps a process
 * alive. A session with an in-flight request or an open stream is never idle.
 *
 * The cap is fair: one client opening sessions as fast as it can does not lock everyone else out
 * for the idle timeout; each new session evicts the longest-idle one instead. (With
 * authorization, a per-principal quota is the sharper tool.)
 */
export class MemorySessionManager implements SessionManager, SessionObserver {
  /** In the order the sessions last went idle (or were opened): the first idle one is the oldest. */
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #maxPerPrincipal: number;
  /** Live sessions per quota key (only keys with sessions). */
  readonly #perPrincipal = new Map<string, number>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #host: SessionHost = UNBOUND;
  #reaped = 0;

  constructor(options: MemorySessionManagerOptions = {}) {
    this.#idleMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
    this.#max = options.maxSessions ?? DEFAULTS.maxSessions;
    this.#maxPerPrincipal = options.maxSessionsPerPrincipal ?? DEFAULTS.maxSessionsPerPrincipal;
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

  create(init: SessionInit): Session {
    const key = init.owner ?? init.client ?? '';
    if ((this.#perPrincipal.get(key) ?? 0) >= this.#maxPerPrincipal) {
      // A principal at its quota makes room among its own sessions only.
      if (!this.#evictOne(key)) throw new SessionLimitError(this.#maxPerPrincipal, 1, 'principal');
    } else if (this.#sessions.size >= this.#max && !this.#evictOne(undefined)) {
      // Every session is busy; one may be evictable as soon as any request ends.
      throw new SessionLimitError(this.#max, 1);
    }
    const session = this.#host.open(crypto.randomUUID(), init);
    session.observer = this;
    this.#sessions.set(session.id, session);
    this.#perPrincipal.set(session.quotaKey, (this.#perPrincipal.get(session.quotaKey) ?? 0) + 1);
    if (!this.#sweeper && this.#idleMs > 0 && Number.isFinite(this.#idleMs)) {
      // Reaped between idleTimeout and idleTimeout × 1.1 after the last activity.
      this.#sweeper = unrefTimer(
        setInterval(sweep, Math.max(10, Math.min(this.#idleMs / 10, 60_000)), this),
      );
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

  /** SessionObserver: nothing to store in memory. */
  changed(): void {}

  /** SessionObserver: the session went idle; it moves to the end of the eviction order. */
  idle(session: Session): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
  }

  /**
   * Ends the longest-idle session with nothing in flight (of principal `key` only, when given);
   * false when every such session is busy.
   */
  #evictOne(key: string | undefined): boolean {
    for (const session of this.#sessions.values()) {
      if (session.active === 0 && (key === undefined || session.quotaKey === key)) {
        this.#end(session, 'session-evicted');
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
        this.#end(session, 'session-expired');
      }
    }
  }

  #end(session: Session, reason: AbortReasonType): void {
    this.#sessions.delete(session.id);
    const left = (this.#perPrincipal.get(session.quotaKey) ?? 1) - 1;
    if (left <= 0) this.#perPrincipal.delete(session.quotaKey);
    else this.#perPrincipal.set(session.quotaKey, left);
    if (this.#sessions.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    this.#host.end(session, reason);
  }
}
