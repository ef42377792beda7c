import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { SessionHandle } from '../server/context.ts';
import type { ClientCapabilities, Implementation } from '../server/types.ts';

/** What a session was opened with (the negotiated `initialize`). */
export interface SessionInit {
  protocolVersion: LegacyVersion;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities;
  /**
   * The principal that opened the session, when requests are authenticated: only its requests
   * see the session (any other principal gets 404, as if it did not exist).
   */
  owner?: string | undefined;
}

/** A server→client request waiting for the client's POSTed response. */
export interface PendingRequest {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
  /** Forgets the request (entry and abort listener) without settling it. */
  release(): void;
}

/** An in-flight request of the session, as the session sees it (the legacy exchange). */
export interface SessionRequest {
  /** Cancels the request (`notifications/cancelled`, session end). */
  abort(type: AbortReasonType): void;
}

/**
 * A logical SSE stream of the session (the standalone GET stream, or a POST's answer), as the
 * session and its transport see it (the legacy stream).
 */
export interface SessionStream {
  readonly id: string;
  /** Whether an HTTP connection carries the stream now. */
  readonly connected: boolean;
  /** Sends one message (stored for replay first, when there is an event store). */
  send(message: string): void;
  /** Ends the live connection without a final message. */
  end(): void;
  /** Opens a new HTTP connection for the stream, replacing a live one. */
  connect(signal: AbortSignal | undefined): Response;
  /** Replays what followed `lastEventId` on a new connection, then goes on live. */
  resume(lastEventId: string, signal: AbortSignal | undefined): Promise<Response>;
}

/**
 * Told about what a durable session manager must store or schedule; the memory manager has none.
 */
export interface SessionObserver {
  /** State worth keeping changed: log level, subscriptions, the state bag, initialized, counters. */
  changed(session: Session): void;
  /** The session has no in-flight request and no open stream any more. */
  idle(session: Session): void;
}

/** Everything a session needs to go on after its process or object restarts (JSON). */
export interface SessionRecord extends SessionInit {
  id: string;
  initialized: boolean;
  logLevel: LogLevel | undefined;
  subscriptions: string[];
  state: Array<[string, unknown]>;
  nextStream: number;
  nextRequest: number;
  lastActive: number;
}

/** The state bag; writes tell the observer so a durable manager can store them. */
class SessionState extends Map<string, unknown> {
  readonly #session: Session;
  constructor(session: Session) {
    super();
    this.#session = session;
  }
  override set(key: string, value: unknown): this {
    super.set(key, value);
    this.#session?.changed();
    return this;
  }
  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.#session.changed();
    return had;
  }
  override clear(): void {
    super.clear();
    this.#session.changed();
  }
}

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
  standalone: SessionStream | undefined;
  /** Set by a durable manager to store and schedule; unset in memory. */
  observer: SessionObserver | undefined;
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
  }

  get state(): Map<string, unknown> {
    this.#state ??= new SessionState(this);
    return this.#state;
  }

  /** Tells the observer that durable state changed (core calls it after each such change). */
  changed(): void {
    if (!this.aborted) this.observer?.changed(this);
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
  isSubscribed(uri: string): boolean {
    return this.#subscriptions?.has(uri) ?? false;
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
    const id = String(this.#nextStream++);
    // Event ids must stay unique after a restart, so the counter is durable state.
    this.changed();
    return id;
  }
  nextRequestId(): string {
    return `s${this.#nextRequest++}`;
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
   * Ends the session: aborts every request with `reason`, ends every stream, rejects what waits on
   * the client, then runs the onClose hooks. Idempotent.
   */
  override abort(reason: AbortReasonType): void {
    if (this.aborted) return;
    super.abort(reason);
    this.standalone?.end();
    for (const stream of this.#streams?.values() ?? []) stream.end();
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
