/**
 * The memory cluster's session manager: one per instance, holding replicas of the shared
 * records, with the `SessionCluster` answers (cancel and client responses over the bus, streams
 * held elsewhere linked through the holder's `attachRemote`).
 */

import type {
  ClientResponse,
  RemoteSink,
  RemoteStreamLink,
  Session,
  SessionCluster,
  SessionHolder,
  SessionHost,
  SessionIds,
  SessionObserver,
  SessionStream,
} from '../../src/cluster.ts';
import type { AbortReasonType } from '../../src/lifecycle/abort-reason.ts';
import type { RequestId } from '../../src/protocol/jsonrpc.ts';
import type { SessionChange, SessionInit, SessionRecord } from '../../src/sessions.ts';
import type { ClusterWorld } from './memory-cluster-world.ts';

interface Replica {
  readonly session: Session;
  /** The record version this replica reflects (-1: unknown, reload on the next get). */
  version: number;
}

export class ClusterSessionManager implements SessionHolder, SessionObserver, SessionCluster {
  readonly tag: string;
  readonly reaped = 0;
  /** Ids that name this instance: one counter for every session (as the Redis manager's). */
  readonly ids: SessionIds;
  /** How long a durable write takes; answers wait for it. */
  writeDelayMs = 1;
  /** Durable writes done so far. */
  writes = 0;
  /**
   * How long a link takes to come back once the holder attached it (Redis: the ack's trip): the
   * holder's events of that window are both stored before the relay reads and forwarded to it.
   */
  linkDelayMs = 10;
  readonly #world: ClusterWorld<ClusterSessionManager>;
  readonly #replicas = new Map<string, Replica>();
  #host: SessionHost | undefined;
  #n = 0;

  constructor(world: ClusterWorld<ClusterSessionManager>, tag: string) {
    this.#world = world;
    this.tag = tag;
    this.ids = { stream: () => `${tag}.${++this.#n}`, request: () => `s${tag}.${++this.#n}` };
  }

  get cluster(): SessionCluster {
    return this;
  }

  get size(): number {
    return this.#replicas.size;
  }

  bind(host: SessionHost): void {
    this.#host = host;
  }

  async create(init: SessionInit): Promise<Session> {
    this.#world.check();
    const session = this.#bound().open(crypto.randomUUID(), init);
    const record = structuredClone(session.toRecord());
    this.#world.records.set(session.id, { record, version: 1, home: undefined });
    this.#adopt(session, 1);
    return session;
  }

  async get(id: string): Promise<Session | undefined> {
    this.#world.check();
    const stored = this.#world.records.get(id);
    const replica = this.#replicas.get(id);
    if (!stored) {
      // Ended elsewhere and the message was missed: the replica goes now.
      if (replica)
        this.#release(replica.session, this.#world.tombstones.get(id) ?? 'session-expired');
      return undefined;
    }
    if (replica) {
      if (replica.version !== stored.version) {
        replica.session.refresh(structuredClone(stored.record));
        replica.version = stored.version;
      }
      return replica.session;
    }
    const session = this.#bound().restore(structuredClone(stored.record));
    this.#adopt(session, stored.version);
    return session;
  }

  async close(id: string, reason: AbortReasonType): Promise<boolean> {
    this.#world.check();
    const stored = this.#world.records.get(id);
    if (!stored) return false;
    this.#world.records.delete(id);
    this.#world.tombstones.set(id, reason);
    const session = this.#replicas.get(id)?.session ?? this.#bound().restore(stored.record);
    this.#replicas.delete(id);
    this.#bound().end(session, reason);
    this.#world.broadcast(this.tag, 'closed', (other) => other.sessions.endedElsewhere(id, reason));
    return true;
  }

  async closeAll(reason: AbortReasonType): Promise<void> {
    for (const id of [...this.#world.records.keys()]) await this.close(id, reason);
  }

  /** This instance stops: its replicas end with `shutdown`, the records stay for the others. */
  shutdown(): void {
    for (const { session } of [...this.#replicas.values()]) this.#release(session, 'shutdown');
    this.#world.stopped(this.tag);
  }

  peek(id: string): Session | undefined {
    return this.#replicas.get(id)?.session;
  }

  forEach(fn: (session: Session) => void): void {
    for (const { session } of this.#replicas.values()) fn(session);
  }

  /** The bus: the session ended on another instance. */
  endedElsewhere(id: string, reason: AbortReasonType): void {
    const replica = this.#replicas.get(id);
    if (replica) this.#release(replica.session, reason);
  }

  /** SessionObserver: the changed field is written a little later; the answer waits for it. */
  changed(session: Session, change?: SessionChange): Promise<void> | undefined {
    const replica = this.#replicas.get(session.id);
    if (replica?.session !== session) return undefined;
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          this.#world.check();
        } catch (error) {
          reject(error);
          return;
        }
        const stored = this.#world.records.get(session.id);
        if (stored) {
          apply(stored.record, session, change);
          stored.version++;
          this.writes++;
          replica.version = replica.version === stored.version - 1 ? stored.version : -1;
        }
        resolve();
      }, this.writeDelayMs);
    });
  }

  idle(): void {}

  // SessionCluster

  cancel(session: Session, requestId: RequestId): void {
    this.#world.broadcast(this.tag, 'cancel', (other) =>
      other.sessions.peek(session.id)?.requests.get(requestId)?.abort('client-cancel'),
    );
  }

  respond(session: Session, id: RequestId, response: ClientResponse): void {
    this.#world.respond(this.tag, session.id, id, response);
  }

  async link(
    session: Session,
    streamId: string,
    _lastEventId: string | undefined,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'> {
    this.#world.check();
    if (streamId === '0') return this.#linkStandalone(session);
    const dot = streamId.lastIndexOf('.');
    const holder = dot > 0 ? streamId.slice(0, dot) : undefined;
    if (holder === undefined || holder === this.tag) return 'local';
    const sessions = this.#world.sessionsOf(holder);
    if (!sessions) return 'orphaned';
    const stream = sessions.peek(session.id)?.streams.get(streamId);
    const link = stream && this.#attach(stream, holder);
    if (!link) return 'local';
    await new Promise((resolve) => setTimeout(resolve, this.linkDelayMs));
    return link;
  }

  /** The standalone stream lives at its home; a GET where there is none (or it is gone) moves it. */
  async #linkStandalone(session: Session): Promise<RemoteStreamLink | 'local'> {
    const stored = this.#world.records.get(session.id);
    if (!stored) return 'local';
    const home = stored.home;
    if (home !== undefined && home !== this.tag) {
      const stream = this.#world.sessionsOf(home)?.peek(session.id)?.standalone;
      const link = stream && this.#attach(stream, home);
      if (link) {
        await new Promise((resolve) => setTimeout(resolve, this.linkDelayMs));
        return link;
      }
    }
    stored.home = this.tag;
    return 'local';
  }

  #attach(stream: SessionStream, holder: string): StreamLink | undefined {
    const link = new StreamLink(this.#world, stream, holder, this.tag);
    return stream.attachRemote?.(link) ? link : undefined;
  }

  #adopt(session: Session, version: number): void {
    session.ids = this.ids;
    session.observer = this;
    this.#replicas.set(session.id, { session, version });
  }

  #release(session: Session, reason: AbortReasonType): void {
    this.#replicas.delete(session.id);
    this.#bound().release(session, reason);
  }

  #bound(): SessionHost {
    if (!this.#host) throw new Error('not bound');
    return this.#host;
  }
}

/** Writes one changed field of `session` into the stored record (the whole record without one). */
function apply(record: SessionRecord, session: Session, change: SessionChange | undefined): void {
  const now = structuredClone(session.toRecord());
  switch (change?.kind) {
    case 'initialized':
      record.initialized = now.initialized;
      return;
    case 'logLevel':
      record.logLevel = now.logLevel;
      return;
    case 'subscription': {
      const subscriptions = new Set(record.subscriptions);
      if (session.isSubscribed(change.uri)) subscriptions.add(change.uri);
      else subscriptions.delete(change.uri);
      record.subscriptions = [...subscriptions];
      return;
    }
    case 'state': {
      const state = new Map(record.state);
      if (session.state.has(change.key))
        state.set(change.key, structuredClone(session.state.get(change.key)));
      else state.delete(change.key);
      record.state = [...state];
      return;
    }
    case 'state-cleared':
      record.state = [];
      return;
    case 'counters':
      record.nextStream = now.nextStream;
      record.nextRequest = now.nextRequest;
      return;
    default:
      Object.assign(record, now);
  }
}

/**
 * Both ends of a relayed stream: the holder's `RemoteSink` (its events go over the bus to the
 * relay's instance) and the relay's `RemoteStreamLink` (its client leaving goes back).
 */
class StreamLink implements RemoteStreamLink, RemoteSink {
  readonly lastId: string | undefined;
  readonly #world: ClusterWorld<ClusterSessionManager>;
  readonly #stream: SessionStream;
  readonly #holder: string;
  readonly #relay: string;
  #sink: RemoteSink | undefined;
  #queued: Array<(sink: RemoteSink) => void> = [];

  constructor(
    world: ClusterWorld<ClusterSessionManager>,
    stream: SessionStream,
    holder: string,
    relay: string,
  ) {
    this.#world = world;
    this.#stream = stream;
    this.#holder = holder;
    this.#relay = relay;
    this.lastId = stream.lastId;
  }

  send(message: string, id: string | undefined, final: boolean): void {
    this.#world.send(this.#relay, 'ev', () =>
      this.#deliver((sink) => sink.send(message, id, final)),
    );
  }

  end(): void {
    this.#world.send(this.#relay, 'end', () => this.#deliver((sink) => sink.end()));
  }

  open(sink: RemoteSink): void {
    this.#sink = sink;
    for (const deliver of this.#queued) deliver(sink);
    this.#queued = [];
  }

  close(why: 'disconnect' | 'stream-overflow'): void {
    this.#world.send(this.#holder, 'detach', () => this.#stream.remoteDropped?.(this, why));
  }

  #deliver(fn: (sink: RemoteSink) => void): void {
    if (this.#sink) fn(this.#sink);
    else this.#queued.push(fn);
  }
}
