/**
 * The options of the core's `SessionManager`, and the host it has until a handler binds it.
 *
 * @module
 */
import type { SessionCluster, SessionHost } from './session-seams.ts';
import type { SessionStore } from './session-store.ts';

export interface SessionManagerOptions {
  /**
   * Where the sessions' records are kept, so they go on after a restart (a Durable Object's
   * storage, a database) or on other instances. @default none: sessions live in this process only
   */
  store?: SessionStore;
  /** A session with no in-flight request and no open stream for this long is closed. @default 600000 (10 min) */
  idleTimeoutMs?: number;
  /**
   * Live sessions at most. At the cap, a new session evicts the longest-idle one that has no
   * request in flight and no open stream (reason `session-evicted`); only when every session is
   * busy is `initialize` answered 503 with `Retry-After`. A shared store keeps its own. @default 10000
   */
  maxSessions?: number;
  /**
   * Live sessions of one principal (the session's owner, else the client address that opened
   * it) at most. A principal at its quota evicts its own longest-idle session, never another's;
   * when every one of its sessions is busy, its `initialize` is answered 429. @default 1000
   */
  maxSessionsPerPrincipal?: number;
  /**
   * With a shared store: copies of sessions kept here at most. Past it the least recently used
   * idle ones are dropped (not ended: the next request rebuilds one). @default 10000
   */
  maxReplicas?: number;
  /** Where requests and streams held by other instances are reached (with a shared store). */
  cluster?: SessionCluster;
}

/** The host of a manager no handler bound yet: it can make no session. */
export const UNBOUND: SessionHost = {
  open() {
    throw new Error('The session manager is not bound to a handler (pass it to createMcpHandler)');
  },
  restore() {
    throw new Error('The session manager is not bound to a handler (pass it to createMcpHandler)');
  },
  end() {},
  release() {},
};
