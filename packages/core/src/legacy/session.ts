import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../server/types.ts';
import type { LegacyExchange } from './exchange.ts';
import type { LegacyStream } from './stream.ts';

/** What a session was opened with (the negotiated `initialize`). */
export interface SessionInit {
  protocolVersion: LegacyVersion;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities;
}

/** A server→client request waiting for the client's POSTed response. */
export interface PendingRequest {
  exchange: LegacyExchange;
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
}

/** The part of a session tools see through `ctx.session`. */
export interface SessionHandle {
  readonly id: string;
  /** Per-session state for stateful tools (a running sum, a cursor); dropped when the session ends. */
  readonly state: Map<string, unknown>;
  /** Runs `fn` once when the session ends, with the reason. */
  onClose(fn: (reason: AbortReasonType) => void): void;
}

/**
 * One legacy session: a node of the cancellation tree (server → session → request) holding what
 * the protocol needs between requests. Collections are created on first use so an idle session
 * stays small.
 */
export class Session extends Scope implements SessionHandle, SessionInit {
  readonly id: string;
  readonly protocolVersion: LegacyVersion;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  initialized = false;
  logLevel: LogLevel | undefined;
  /** In-flight requests and live stream connections; the session is idle only at 0. */
  active = 0;
  lastActive = Date.now();
  #state: Map<string, unknown> | undefined;
  #subscriptions: Set<string> | undefined;
  #requests: Map<RequestId, LegacyExchange> | undefined;
  #pending: Map<RequestId, PendingRequest> | undefined;
  #streams: Map<string, LegacyStream> | undefined;
  #onClose: Array<(reason: AbortReasonType) => void> | undefined;
  standalone: LegacyStream | undefined;
  #nextStream = 1;
  #nextRequest = 1;

  constructor(parent: Scope, id: string, init: SessionInit) {
    super(parent);
    this.id = id;
    this.protocolVersion = init.protocolVersion;
    this.clientInfo = init.clientInfo;
    this.clientCapabilities = init.clientCapabilities;
  }

  get state(): Map<string, unknown> {
    this.#state ??= new Map();
    return this.#state;
  }
  get subscriptions(): Set<string> {
    this.#subscriptions ??= new Set();
    return this.#subscriptions;
  }
  get requests(): Map<RequestId, LegacyExchange> {
    this.#requests ??= new Map();
    return this.#requests;
  }
  get pending(): Map<RequestId, PendingRequest> {
    this.#pending ??= new Map();
    return this.#pending;
  }
  get streams(): Map<string, LegacyStream> {
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
    return String(this.#nextStream++);
  }
  nextRequestId(): string {
    return `s${this.#nextRequest++}`;
  }

  enter(): void {
    this.active++;
  }
  leave(): void {
    this.active--;
    if (this.active === 0) this.lastActive = Date.now();
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
