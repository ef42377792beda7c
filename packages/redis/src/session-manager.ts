/**
 * `RedisSessionManager` (design §4.4): legacy sessions whose records live in Redis, served by any
 * instance. Each instance keeps replicas (live `Session` objects) revalidated by one `TOUCH`
 * script per request; the record's fields are written as they change; the idle deadline is a
 * sorted set pushed by requests and by each instance's heartbeat for what it holds busy; the cap
 * is cluster-wide. What happens to a session on one instance reaches the others on the bus.
 */
import type { AbortReasonType } from '@edge-mcp/core';
import type { Session, SessionHolder, SessionHost, SessionObserver } from '@edge-mcp/core/cluster';
import { type SessionChange, SessionLimitError } from '@edge-mcp/core/sessions';
import { closeEverySession } from './close-all.ts';
import type { RedisContext } from './context.ts';
import { sessionBeat } from './heartbeat.ts';
import type { RedisReply } from './redis-types.ts';
import { type Replica, Replicas } from './replicas.ts';
import { CLOSE, CREATE, TOUCH } from './scripts/sessions.ts';
import { RedisSessionCluster } from './session-cluster.ts';
import {
  decodeRecord,
  endedRecord,
  initFields,
  reasonOf,
  type StoredRecord,
} from './session-record.ts';
import { SessionWriter } from './session-writes.ts';

export class RedisSessionManager implements SessionHolder, SessionObserver {
  readonly #context: RedisContext;
  readonly #replicas: Replicas;
  readonly #writer: SessionWriter;
  /** Where requests, pending server→client requests and streams held elsewhere are reached. */
  readonly cluster: RedisSessionCluster;
  /** Milliseconds from a touch to the idle deadline (idle timeout + one heartbeat). */
  readonly deadlineMs: number;
  /** The backstop TTL of a session's keys: Redis removes an abandoned session by itself. */
  readonly backstopMs: number;
  /** Redis was away: the next heartbeat refreshes every replica, not only the busy ones. */
  reconcile = false;
  readonly #detach: Array<() => void> = [];
  #host: SessionHost | undefined;
  #reaped = 0;
  #stopped = false;

  constructor(context: RedisContext) {
    const { options, connection, keys, instance, bus } = context;
    this.#context = context;
    this.#replicas = new Replicas(options.maxReplicas);
    this.#writer = new SessionWriter(connection, keys, instance.tag, options.onError);
    this.cluster = new RedisSessionCluster(context, this);
    this.deadlineMs = options.idleTimeoutMs + options.heartbeatMs;
    this.backstopMs = this.deadlineMs + 60_000;
    this.#detach.push(
      bus.on('closed', ({ s, reason }) => this.release(s, reasonOf(reason))),
      bus.on('closeAll', ({ reason }) => {
        for (const replica of [...this.#replicas.values()])
          this.#release(replica, reasonOf(reason));
      }),
      instance.onBeat(() => sessionBeat(this, this.#context)),
      connection.onUnavailable(() => {
        this.reconcile = true;
      }),
      this.cluster.start(),
    );
  }

  /** Replicas this instance holds. */
  get size(): number {
    return this.#replicas.size;
  }

  /** Sessions this instance ended by the idle sweep. */
  get reaped(): number {
    return this.#reaped;
  }

  bind(host: SessionHost): void {
    this.#host = host;
  }

  /** The handler's host: sessions exist only once the manager is given to `createMcpHandler`. */
  #bound(): SessionHost {
    if (this.#host === undefined)
      throw new Error(
        'The session manager is not bound to a handler (pass it to createMcpHandler)',
      );
    return this.#host;
  }

  async create(init: Parameters<SessionHolder['create']>[0]): Promise<Session> {
    const { connection, keys, options, instance } = this.#context;
    const id = crypto.randomUUID();
    // The quota key the memory manager and `Session.quotaKey` use.
    const principal = init.owner ?? init.client ?? '';
    const reply = (await connection.script(
      CREATE,
      [keys.sessions, keys.session(id), keys.principalSessions(principal)],
      [
        keys.namespace,
        id,
        options.maxSessions,
        this.deadlineMs,
        this.backstopMs,
        Math.round(1.5 * options.heartbeatMs),
        instance.tag,
        principal,
        options.maxSessionsPerPrincipal,
        ...initFields(init),
      ],
    )) as RedisReply[];
    this.ended(reply.slice(1));
    if (reply[0] === 'quota')
      throw new SessionLimitError(options.maxSessionsPerPrincipal, 1, 'principal');
    if (reply[0] !== 'ok') throw new SessionLimitError(options.maxSessions, 1);
    const session = this.#bound().open(id, init);
    this.#adopt(session, 1);
    return session;
  }

  async get(id: string): Promise<Session | undefined> {
    const { connection, keys } = this.#context;
    const replica = this.#replicas.use(id);
    const known = replica && replica.version > 0 ? String(replica.version) : '';
    const reply = await connection.script(
      TOUCH,
      [keys.session(id), keys.events(id), keys.sessions, keys.gone(id)],
      [id, this.deadlineMs, this.backstopMs, known],
    );
    return this.#touched(id, reply);
  }

  async close(id: string, reason: AbortReasonType): Promise<boolean> {
    const { connection, keys, instance } = this.#context;
    const reply = await connection.script(
      CLOSE,
      [keys.sessions],
      [keys.namespace, id, reason, instance.tag, ''],
    );
    if (!Array.isArray(reply) || reply.length === 0) {
      this.release(id, reason);
      return false;
    }
    this.ended([reply]);
    return true;
  }

  /** Ends every session of the cluster; resolves with how many ended. */
  async closeEvery(reason: AbortReasonType): Promise<number> {
    const count = await closeEverySession(this.#context, reason, (ended) => this.ended(ended));
    for (const replica of [...this.#replicas.values()]) this.#release(replica, reason);
    return count;
  }

  async closeAll(reason: AbortReasonType): Promise<void> {
    await this.closeEvery(reason);
  }

  /**
   * This instance stops: what it holds ends (reason `shutdown`), what it has not written yet is
   * written, its liveness key goes (others see its streams orphaned at once); the sessions stay.
   */
  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    // Replicas first, while the bus still listens: relays elsewhere get their `end`, holders
    // elsewhere their `detach`.
    const flushed: Array<Promise<void>> = [];
    for (const replica of [...this.#replicas.values()]) {
      this.#release(replica, 'shutdown');
      if (replica.unsent) flushed.push(this.#writer.flush(replica, true));
    }
    for (const detach of this.#detach.splice(0)) detach();
    await Promise.all([...flushed, this.#context.instance.stop()]);
  }

  peek(id: string): Session | undefined {
    return this.#replicas.get(id)?.session;
  }

  forEach(fn: (session: Session) => void): void {
    for (const replica of this.#replicas.values()) fn(replica.session);
  }

  /** SessionObserver: the change is written (coalesced per tick); the answer waits for it. */
  changed(session: Session, change?: SessionChange): Promise<void> | undefined {
    // Its own replica, also one the cache dropped while a request held it (then kept again).
    const replica = this.#replicas.of(session);
    return replica && this.#writer.changed(replica, session, change);
  }

  idle(): void {}

  // For the heartbeat (heartbeat.ts).

  /** Every replica, for the heartbeat's refresh and flush. */
  replicas(): IterableIterator<Replica> {
    return this.#replicas.values();
  }

  writer(): SessionWriter {
    return this.#writer;
  }

  pruneCancels(): void {
    this.cluster.prune();
  }

  /** The session ended elsewhere (a message, the heartbeat): its replica here goes. */
  release(id: string, reason: AbortReasonType): void {
    const replica = this.#replicas.get(id);
    if (replica) this.#release(replica, reason);
  }

  /**
   * Sessions this instance ended (`end_session`'s `{reason, id, pv, ci, cc, ow}`): their end is
   * reported here, once in the cluster (hooks, `onSessionClose`, events dropped).
   */
  ended(replies: readonly RedisReply[]): void {
    for (const reply of replies) {
      if (!Array.isArray(reply)) continue;
      const [reason, id, pv, ci, cc, ow] = reply.map(String) as string[];
      const why = reasonOf(reason);
      if (why === 'session-expired') this.#reaped++;
      const replica = this.#replicas.delete(id as string);
      this.cluster.forget(id as string);
      const session =
        replica?.session ??
        this.#bound().restore(
          endedRecord(id as string, pv as string, ci as string, cc as string, ow as string),
        );
      this.#bound().end(session, why);
    }
  }

  #touched(id: string, reply: RedisReply): Session | undefined | Promise<Session | undefined> {
    const replica = this.#replicas.get(id);
    if (Array.isArray(reply) && reply[0] === 0) {
      if (replica) this.#release(replica, reasonOf(reply[1]));
      return undefined;
    }
    if (!Array.isArray(reply)) {
      // Unchanged: the replica, unless it was dropped meanwhile (then the record is read again).
      return replica ? replica.session : this.reload(id);
    }
    const stored = decodeRecord(id, reply);
    if (!stored) return undefined;
    if (replica) {
      this.#apply(replica, stored);
      return replica.session;
    }
    return this.#adopt(this.#bound().restore(stored.record), stored.version).session;
  }

  /** A newer record applied to the replica, unless its own writes are on the way (they decide). */
  #apply(replica: Replica, stored: StoredRecord): void {
    if (replica.writing > 0 || replica.unsent || stored.version === replica.version) return;
    replica.session.refresh(stored.record);
    replica.version = stored.version;
  }

  /** Reads the whole record again (a replica's subscriptions changed elsewhere, a dropped one). */
  reload(id: string): Promise<Session | undefined> {
    const replica = this.#replicas.get(id);
    if (replica) replica.version = -1;
    const { connection, keys, options } = this.#context;
    const read = connection
      .script(
        TOUCH,
        [keys.session(id), keys.events(id), keys.sessions, keys.gone(id)],
        [id, this.deadlineMs, this.backstopMs, ''],
      )
      .then((reply) => this.#touched(id, reply));
    read.catch((error: Error) => options.onError(error, 'session-reload'));
    return read;
  }

  #adopt(session: Session, version: number): Replica {
    session.ids = this.#context.instance.ids;
    session.observer = this;
    this.cluster.adopted(session);
    return this.#replicas.add(session, version);
  }

  /** This instance lets go of a replica (the session ended elsewhere, or it shuts down). */
  #release(replica: Replica, reason: AbortReasonType): void {
    const session = replica.session;
    if (this.#replicas.get(session.id) === replica) this.#replicas.delete(session.id);
    this.cluster.forget(session.id);
    this.#bound().release(session, reason);
  }
}
