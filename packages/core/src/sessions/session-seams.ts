/**
 * The seams between the handler and its `SessionManager`: the host the handler lends
 * (`SessionHost`, the only way to make and end session objects), what the handler asks of the
 * manager (`SessionHolder`), both internal, and the cross-instance seam a cluster gives the
 * manager (`SessionCluster`, public in `@edge-mcp/core/cluster`).
 *
 * @module
 */
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { Session, SessionRecord } from './session.ts';
import type { ClientResponse, RemoteStreamLink, SessionIds, SessionInit } from './session-types.ts';

/**
 * What the handler lends its session holder when it binds it: the only way to make session
 * objects (they hang under the handler's cancellation tree, which a holder never sees), and
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
   * (`onSessionClose`) and its events are dropped.
   */
  end(session: Session, reason: AbortReasonType): void;
  /**
   * Lets go of a live session object without the session ending here (it ended on another
   * instance, or this instance shuts down): its requests and streams are aborted with `reason`
   * and the object disposed; only local effects run. Never for a session also passed to `end`.
   */
  release(session: Session, reason: AbortReasonType): void;
}

/**
 * Where a request, a server→client request or a stream of a session is held, when sessions span
 * instances: what the core asks once its local lookup missed. Absent in memory and in Durable
 * Objects (one holder per session).
 */
export interface SessionCluster {
  /** Mints ids that name this instance, set on every session the manager opens or restores. */
  readonly ids?: SessionIds;
  /** The manager opened or restored `session` here. */
  adopted?(session: Session): void;
  /** The manager let go of session `id` here (ended, released or dropped). */
  forget?(id: string): void;
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
   * - `'orphaned'`: its holder is gone: a request stream before its final message; the standalone
   *   stream, which this instance takes over from a home that died or gave it up, or which a
   *   resume finds without a home (news raised meanwhile may have reached no stream: the client
   *   is told to read the lists again).
   */
  link(
    session: Session,
    streamId: string,
    lastEventId: string | undefined,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'>;
}

/**
 * What the handler asks of the `SessionManager` that holds its live sessions (over a
 * `SessionStore` or none). `create`, `get` and `close` may answer with a promise.
 */
export interface SessionHolder {
  /** The handler binds itself once, before any other call. */
  bind(host: SessionHost): void;
  /** Creates and registers a session (through `host.open`); throws SessionLimitError when full. */
  create(init: SessionInit): Session | Promise<Session>;
  get(id: string): Session | undefined | Promise<Session | undefined>;
  /** Ends a session with `reason` (DELETE, idle, operator); false when unknown. */
  close(id: string, reason: AbortReasonType): boolean | Promise<boolean>;
  /** Ends every session it holds with `reason` (in a cluster, every session of every instance). */
  closeAll(reason: AbortReasonType): void | Promise<void>;
  /**
   * This instance stops (`handler.close()`): what it holds ends (reason `shutdown`); a durable
   * holder keeps the sessions for a restart or the other instances. Without it, `close()` calls
   * `closeAll('shutdown')`.
   */
  shutdown?(): void | Promise<void>;
  /** The live session if this instance holds it, without a round trip (task status fan-out). */
  peek?(id: string): Session | undefined;
  /** Present when sessions span instances; absent in memory and Durable Objects. */
  readonly cluster?: SessionCluster | undefined;
  /** Calls `fn` for every live session this instance holds (fan-out of server notifications). */
  forEach(fn: (session: Session) => void): void;
  /** Live sessions this instance holds. */
  readonly size: number;
  /** Sessions ended by the idle timeout so far. */
  readonly reaped: number;
}
