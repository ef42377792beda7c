import type { AuthInfo } from '../auth/auth-info.ts';
import { McpError } from '../errors.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { SessionHandle } from '../server/context.ts';
import type { ClientCapabilities, Implementation } from '../server/types.ts';
import { SessionState } from './session-state.ts';
import type {
  ClientResponse,
  PendingRequest,
  SessionChange,
  SessionIds,
  SessionInit,
  SessionRecord,
  SessionRequest,
  SessionStream,
} from './session-types.ts';

export type {
  ClientResponse,
  PendingRequest,
  RemoteSink,
  RemoteStreamLink,
  SessionChange,
  SessionIds,
  SessionInit,
  SessionRecord,
  SessionRequest,
  SessionStream,
} from './session-types.ts';

/**
 * Told about what a durable session manager must store or schedule; the memory manager has none.
 */
export interface SessionObserver {
  /**
   * State worth keeping changed: log level, subscriptions, the state bag, initialized, counters
   * (`change` says which; a manager that stores the whole record may ignore it). A returned
   * promise settles once the change is durable: the answer of the request that made it waits
   * for it (`session.writes`).
   */
  changed(session: Session, change?: SessionChange): void | Promise<void>;
  /** The session has no in-flight request and no open stream any more. */
  idle(session: Session): void;
}

const COUNTERS: SessionChange = Object.freeze({ kind: 'counters' });

function settledWith(): void {}

/**
 * One legacy session: a node of the cancellation tree (server → session → request) holding what
 * the protocol needs between requests. Collections are created on first use so an idle session
 * stays small. Only the handler makes sessions (`SessionHost.open`/`restore`); a session
 * manager holds them.
 */
export class Session extends Scope implements SessionHandle, SessionInit {
  readonly id: string;
  readonly protocolVersion: LegacyVersion;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly owner: string | undefined;
  /** Who the session counts against for quotas: its owner, else the client that opened it. */
  readonly quotaKey: string;
  initialized = false;
  logLevel: LogLevel | undefined;
  /** In-flight requests and live stream connections; the session is idle only at 0. */
  active = 0;
  /** Live SSE connections of the session (its GET stream, streamed answers, resumptions). */
  connections = 0;
  lastActive: number = Date.now();
  /** When the session was opened (this instance: a restored session counts from its restore). */
  readonly openedAt: number = Date.now();
  #state: Map<string, unknown> | undefined;
  #subscriptions: Set<string> | undefined;
  #requests: Map<RequestId, SessionRequest> | undefined;
  #pending: Map<RequestId, PendingRequest> | undefined;
  #streams: Map<string, SessionStream> | undefined;
  #onClose: Array<(reason: AbortReasonType) => void> | undefined;
  #relays: Set<{ end(): void }> | undefined;
  /** Durable writes in flight (a promise an observer returned), settled or not. */
  #writes: Promise<void> | undefined;
  standalone: SessionStream | undefined;
  /**
   * The caller of the request that last opened or resumed the standalone stream here: list
   * changes of registrations not everyone sees go to the sessions whose caller sees them.
   */
  viewer: AuthInfo | undefined;
  /** Set by a durable manager to store and schedule; unset in memory. */
  observer: SessionObserver | undefined;
  /** Its neighbours in its table's idle order (`SessionTable`: a list, not a Map's order). */
  idlePrev: Session | undefined;
  idleNext: Session | undefined;
  /**
   * Set by a manager whose sessions span instances (when it makes the replica), so stream and
   * server→client request ids name this instance; unset: the session's own counters.
   */
  ids: SessionIds | undefined;
  #nextStream = 1;
  #nextRequest = 1;

  constructor(parent: Scope, id: string, init: SessionInit) {
    // The session manager holds every session and is closed before the root is aborted, so the
    // root keeps no set entry per session (memory and time per initialize).
    super(parent, false);
    this.id = id;
    this.protocolVersion = init.protocolVersion;
    this.clientInfo = init.clientInfo;
    this.clientCapabilities = init.clientCapabilities;
    this.owner = init.owner;
    this.quotaKey = init.owner ?? init.client ?? '';
  }

  get state(): Map<string, unknown> {
    this.#state ??= new SessionState(this);
    return this.#state;
  }

  /**
   * Tells the observer that durable state changed (core calls it after each such change, saying
   * what changed). A write the observer reports as a promise is tracked in `writes`.
   */
  changed(change?: SessionChange): void {
    if (this.aborted) return;
    const written = this.observer?.changed(this, change);
    if (written instanceof Promise) this.#track(written);
  }

  /**
   * Durable writes still in flight: the answer of a request waits for them, so a change made on
   * one instance is seen by the next request on another. `undefined` almost always (the memory
   * manager never makes one); never rejects.
   */
  get writes(): Promise<void> | undefined {
    return this.#writes;
  }

  #track(write: Promise<void>): void {
    const settled = write.then(settledWith, settledWith);
    const previous = this.#writes;
    const all = previous ? Promise.all([previous, settled]).then(settledWith) : settled;
    this.#writes = all;
    void all.then(() => {
      if (this.#writes === all) this.#writes = undefined;
    });
  }

  /**
   * Applies a newer stored record to this live session (a replica another instance changed),
   * without telling the observer. Identity fields (version, client, owner) never change.
   */
  refresh(record: SessionRecord): void {
    this.initialized = record.initialized;
    this.logLevel = record.logLevel;
    if (this.#subscriptions || record.subscriptions.length > 0) {
      const subscriptions = this.subscriptions;
      subscriptions.clear();
      for (const uri of record.subscriptions) subscriptions.add(uri);
    }
    if (this.#state || record.state.length > 0) {
      const state = this.state;
      Map.prototype.clear.call(state);
      for (const [key, value] of record.state) Map.prototype.set.call(state, key, value);
    }
    this.#nextStream = Math.max(this.#nextStream, record.nextStream);
    this.#nextRequest = Math.max(this.#nextRequest, record.nextRequest);
    this.lastActive = Math.max(this.lastActive, record.lastActive);
  }

  toRecord(): SessionRecord {
    return {
      id: this.id,
      protocolVersion: this.protocolVersion,
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      owner: this.owner,
      initialized: this.initialized,
      logLevel: this.logLevel,
      subscriptions: [...(this.#subscriptions ?? [])],
      state: [...(this.#state ?? [])],
      nextStream: this.#nextStream,
      nextRequest: this.#nextRequest,
      lastActive: this.lastActive,
    };
  }

  /** A session rebuilt from its record (after a restart), under `parent`. */
  static restore(parent: Scope, record: SessionRecord): Session {
    const session = new Session(parent, record.id, record);
    session.initialized = record.initialized;
    session.logLevel = record.logLevel;
    for (const uri of record.subscriptions) session.subscriptions.add(uri);
    if (record.state.length > 0) session.#state = new SessionState(session);
    for (const [key, value] of record.state) Map.prototype.set.call(session.#state, key, value);
    session.#nextStream = record.nextStream;
    session.#nextRequest = record.nextRequest;
    session.lastActive = record.lastActive;
    return session;
  }
  get subscriptions(): Set<string> {
    this.#subscriptions ??= new Set();
    return this.#subscriptions;
  }
  get requests(): Map<RequestId, SessionRequest> {
    this.#requests ??= new Map();
    return this.#requests;
  }
  get pending(): Map<RequestId, PendingRequest> {
    this.#pending ??= new Map();
    return this.#pending;
  }
  get streams(): Map<string, SessionStream> {
    this.#streams ??= new Map();
    return this.#streams;
  }
  /** Relays on this instance of streams another instance holds; the session's end ends them. */
  get relays(): Set<{ end(): void }> {
    this.#relays ??= new Set();
    return this.#relays;
  }

  /**
   * A client's response to the server→client request `id`: settles the request if it waits
   * here (an error response rejects it with an McpError); false when nothing here waits for it.
   */
  answer(id: RequestId, response: ClientResponse): boolean {
    const pending = this.#pending?.get(id);
    if (!pending) return false;
    this.#pending?.delete(id);
    if ('error' in response)
      pending.reject(
        new McpError(response.error.code, response.error.message, { data: response.error.data }),
      );
    else pending.resolve(response.result);
    return true;
  }
  isSubscribed(uri: string): boolean {
    return this.#subscriptions?.has(uri) ?? false;
  }

  /** Whether `onClose` hooks are registered (a holder must not drop such a session silently). */
  get hooked(): boolean {
    return this.#onClose !== undefined && this.#onClose.length > 0;
  }

  onClose(fn: (reason: AbortReasonType) => void): void {
    if (this.aborted) {
      fn(this.reason ?? 'shutdown');
      return;
    }
    this.#onClose ??= [];
    this.#onClose.push(fn);
  }

  nextStreamId(): string {
    if (this.ids) return this.ids.stream();
    const id = String(this.#nextStream++);
    // Event ids must stay unique after a restart, so the counter is durable state.
    this.changed(COUNTERS);
    return id;
  }
  nextRequestId(): string {
    return this.ids ? this.ids.request() : `s${this.#nextRequest++}`;
  }

  enter(): void {
    this.active++;
  }
  leave(): void {
    this.active--;
    if (this.active === 0) {
      this.lastActive = Date.now();
      this.observer?.idle(this);
    }
  }

  /**
   * The session ended (`abort(reason)`, its requests aborted with it): every stream ends, what
   * waits on the client is rejected, then the onClose hooks run.
   */
  protected override onAbort(reason: AbortReasonType): void {
    this.standalone?.end();
    for (const stream of this.#streams?.values() ?? []) stream.end();
    for (const relay of this.#relays ?? []) relay.end();
    this.#relays?.clear();
    for (const pending of this.#pending?.values() ?? []) pending.reject(this.abortError);
    this.#pending?.clear();
    this.#streams?.clear();
    this.#requests?.clear();
    const hooks = this.#onClose;
    this.#onClose = undefined;
    for (const hook of hooks ?? []) {
      try {
        hook(reason);
      } catch {
        // One tool's cleanup failing must not keep the others from running.
      }
    }
    this.#state?.clear();
  }
}
