import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
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
  /** The client address of the `initialize`: what an unauthenticated session counts against. */
  client?: string | undefined;
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

/** A server→client request waiting for the client's POSTed response. */
export interface PendingRequest {
  resolve(result: JsonObject): void;
  reject(error: unknown): void;
  /** Forgets the request (entry and abort listener) without settling it. */
  release(): void;
}

/** A client's response to a server→client request (elicitation, sampling, roots). */
export type ClientResponse =
  | { readonly result: JsonObject }
  | { readonly error: { code: number; message: string; data?: unknown } };

/** An in-flight request of the session, as the session sees it (the legacy exchange). */
export interface SessionRequest {
  /** Cancels the request (`notifications/cancelled`, session end). */
  abort(type: AbortReasonType): void;
}

/**
 * What a stream's holder sends its events to when another instance carries the stream's HTTP
 * connection (the relay side of a `RemoteStreamLink`).
 */
export interface RemoteSink {
  /**
   * One event, already stored (`id` undefined: the store failed, so it cannot be replayed);
   * `final`: the stream's last message (the answer), after which the connection ends.
   */
  send(message: string, id: string | undefined, final: boolean): void;
  /** The holder ends the connection without a final message (session over, shutdown, replaced). */
  end(): void;
}

/**
 * A logical SSE stream of the session (the standalone GET stream, or a POST's answer), as the
 * session and its transport see it (the legacy stream).
 */
export interface SessionStream {
  readonly id: string;
  /** Whether an HTTP connection carries the stream now (here, or relayed by another instance). */
  readonly connected: boolean;
  /** The newest event id sent on the stream (a fresh connection primes with it). */
  readonly lastId?: string | undefined;
  /** Sends one message (stored for replay first, when there is an event store). */
  send(message: string): void;
  /** Ends the live connection without a final message. */
  end(): void;
  /**
   * Opens a new HTTP connection for the stream, replacing a live one; a GET's `load` is held
   * while it is open.
   */
  connect(signal: AbortSignal | undefined, prime?: boolean, load?: RequestLoad): Response;
  /** Replays what followed `lastEventId` on a new connection, then goes on live. */
  resume(
    lastEventId: string,
    signal: AbortSignal | undefined,
    load?: RequestLoad,
  ): Promise<Response>;
  /**
   * Another instance's relay becomes this stream's connection: a live one is replaced, and a
   * pending disconnect grace is cleared. False when the stream is over.
   */
  attachRemote?(sink: RemoteSink): boolean;
  /** That relay's client left: treated like the live connection dropping (grace or abort). */
  remoteDropped?(sink: RemoteSink, why: 'disconnect' | 'stream-overflow'): void;
}

/** The relay side of a stream another instance holds (from `SessionCluster.link`). */
export interface RemoteStreamLink {
  /** The newest event id the holder sent on it (a fresh standalone connection primes with it). */
  readonly lastId: string | undefined;
  /** Delivers the holder's events from the link's start, in order (buffered until opened). */
  open(sink: RemoteSink): void;
  /** This relay's client left: the holder applies its disconnect policy. */
  close(why: 'disconnect' | 'stream-overflow'): void;
}

/**
 * Mints the ids a session's holder makes. Set by a manager whose sessions span instances, so that
 * an id names the instance that holds the stream or waits for the answer.
 */
export interface SessionIds {
  /** A stream id unique across the cluster: never '0' (the standalone stream), without '-'. */
  stream(): string;
  /** A server→client request id unique across the cluster. */
  request(): string;
}

/** What a durable change of a session touched (a manager that stores fields may write only it). */
export type SessionChange =
  | { readonly kind: 'initialized' }
  | { readonly kind: 'logLevel' }
  /** Added or removed: see `session.isSubscribed(uri)`. */
  | { readonly kind: 'subscription'; readonly uri: string }
  /** Set or deleted: see `session.state.has(key)`. */
  | { readonly kind: 'state'; readonly key: string }
  | { readonly kind: 'state-cleared' }
  /** The stream and request counters (`nextStream`, `nextRequest`). */
  | { readonly kind: 'counters' };
