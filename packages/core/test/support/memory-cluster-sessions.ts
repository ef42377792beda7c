/**
 * The memory cluster's sessions (one per instance, under the core's `SessionManager`): the
 * shared records as a shared `SessionStore` (`ClusterRecords`), and the `SessionCluster` answers
 * (`ClusterLinks`: cancel and client responses over the bus, streams held elsewhere linked through
 * the holder's `attachRemote`).
 */

import type {
  ClientResponse,
  RemoteSink,
  RemoteStreamLink,
  Session,
  SessionCluster,
  SessionIds,
  SessionStream,
} from '../../src/cluster.ts';
import type { AbortReasonType } from '../../src/lifecycle/abort-reason.ts';
import type { RequestId } from '../../src/protocol/jsonrpc.ts';
import type {
  SessionChange,
  SessionInit,
  SessionLoad,
  SessionRecord,
  SessionStore,
  SessionStoreHost,
} from '../../src/sessions.ts';
import type { ClusterWorld } from './memory-cluster-world.ts';

/** The records every instance shares, as Redis holds them (JSON copies, versions, tombstones). */
export class ClusterRecords implements SessionStore {
  readonly shared = true;
  readonly tag: string;
  /** How long a durable write takes; answers wait for it. */
  writeDelayMs = 1;
  /** Durable writes done so far. */
  writes = 0;
  readonly #world: ClusterWorld;
  #host: SessionStoreHost | undefined;

  constructor(world: ClusterWorld, tag: string) {
    this.#world = world;
    this.tag = tag;
  }

  bind(host: SessionStoreHost): void {
    this.#host = host;
  }

  create(_init: SessionInit): string {
    this.#world.check();
    return crypto.randomUUID();
  }

  load(id: string, knownVersion: number | undefined): SessionLoad {
    this.#world.check();
    const stored = this.#world.records.get(id);
    // Ended elsewhere and the message was missed: what this instance holds of it goes.
    if (!stored) return 'gone';
    if (stored.version === knownVersion) return 'unchanged';
    return { record: structuredClone(stored.record), version: stored.version };
  }

  /** The first record is stored at once; a change a little later (the answer waits for it). */
  write(record: SessionRecord, change: SessionChange | undefined): void | Promise<void> {
    this.#world.check();
    if (change === undefined && !this.#world.records.has(record.id)) {
      this.#world.records.set(record.id, {
        record: structuredClone(record),
        version: 1,
        home: undefined,
      });
      return;
    }
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          this.#world.check();
        } catch (error) {
          reject(error);
          return;
        }
        const stored = this.#world.records.get(record.id);
        if (stored) {
          apply(stored.record, structuredClone(record), change);
          stored.version++;
          this.writes++;
        }
        resolve();
      }, this.writeDelayMs);
    });
  }

  delete(id: string, reason: AbortReasonType): boolean {
    this.#world.check();
    if (!this.#world.records.delete(id)) return false;
    this.#world.tombstones.set(id, reason);
    this.#world.broadcast(this.tag, 'closed', (other) => other.records.endedElsewhere(id, reason));
    return true;
  }

  /** Every session of the cluster ends; those this instance ends are reported here. */
  async clear(reason: AbortReasonType): Promise<void> {
    for (const [id, stored] of [...this.#world.records]) {
      if (!this.delete(id, reason)) continue;
      this.#host?.ended(stored.record, reason);
    }
  }

  /** Nothing expires in the double (no test here times a cluster session out). */
  touch(): void {}

  /** This instance stops: it gets no message any more; the records stay for the others. */
  close(): void {
    this.#world.stopped(this.tag);
  }

  /** The bus: the session ended on another instance. */
  endedElsewhere(id: string, reason: AbortReasonType): void {
    this.#host?.gone(id, reason);
  }
}

/** Where requests and streams another instance holds are reached. */
export class ClusterLinks implements SessionCluster {
  readonly tag: string;
  /** Ids that name this instance: one counter for every session (as Redis's instance's). */
  readonly ids: SessionIds;
  /**
   * How long a link takes to come back once the holder attached it (Redis: the ack's trip): the
   * holder's events of that window are both stored before the relay reads and forwarded to it.
   */
  linkDelayMs = 10;
  readonly #world: ClusterWorld;
  #n = 0;

  constructor(world: ClusterWorld, tag: string) {
    this.#world = world;
    this.tag = tag;
    this.ids = { stream: () => `${tag}.${++this.#n}`, request: () => `s${tag}.${++this.#n}` };
  }

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
}

/** Writes the changed field of `now` (a session's whole record) into the stored record. */
function apply(record: SessionRecord, now: SessionRecord, change: SessionChange | undefined): void {
  switch (change?.kind) {
    case 'initialized':
      record.initialized = now.initialized;
      return;
    case 'logLevel':
      record.logLevel = now.logLevel;
      return;
    case 'subscription': {
      const subscriptions = new Set(record.subscriptions);
      if (now.subscriptions.includes(change.uri)) subscriptions.add(change.uri);
      else subscriptions.delete(change.uri);
      record.subscriptions = [...subscriptions];
      return;
    }
    case 'state': {
      const state = new Map(record.state);
      const entry = now.state.find(([key]) => key === change.key);
      if (entry) state.set(change.key, entry[1]);
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
  readonly #world: ClusterWorld;
  readonly #stream: SessionStream;
  readonly #holder: string;
  readonly #relay: string;
  #sink: RemoteSink | undefined;
  #queued: Array<(sink: RemoteSink) => void> = [];

  constructor(world: ClusterWorld, stream: SessionStream, holder: string, relay: string) {
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
