import { RequestAbortedError } from '../lifecycle/abort-reason.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { REVISION_RULES } from '../protocol/constants.ts';
import type { AppendInfo, EventStore } from '../sessions/event-store.ts';
import type { RemoteSink, Session, SessionStream } from '../sessions/session.ts';
import { encodePriming, KEEP_ALIVE } from '../sse/encoder.ts';
import { type Coalescing, SSE_HEADERS, type SseOwner, SseStream } from '../sse/stream.ts';
import type { StreamConfig, StreamOwner } from './stream-types.ts';

export type { StreamConfig, StreamOwner } from './stream-types.ts';

const FINAL: AppendInfo = Object.freeze({ final: true });

/**
 * A logical legacy SSE stream (a POST's answer, or the session's standalone GET stream) that may
 * outlive its HTTP connection: with an EventStore every message is stored under an event id, and a
 * GET with `Last-Event-ID` re-attaches a new connection, replaying what the old one missed.
 *
 * The request stream's owner (the exchange) decides what a dropped connection means for the
 * handler; the standalone stream simply waits for the next GET.
 *
 * With sessions that span instances, the connection may be another instance's relay (a
 * `RemoteSink`, `attachRemote`): events go to whichever of the two is set, never both.
 */
export class LegacyStream implements SseOwner, SessionStream {
  readonly id: string;
  readonly session: Session;
  readonly owner: StreamOwner | undefined;
  readonly #config: StreamConfig;
  #live: SseStream | undefined;
  /** Another instance's relay carrying the connection instead of `#live`. */
  #remote: RemoteSink | undefined;
  #signal: AbortSignal | undefined;
  /** The GET's place among its principal's requests in flight, while its connection is live. */
  #load: RequestLoad | undefined;
  /** The final message went out: the stream ends once it is delivered. */
  #done = false;
  /** The final message was handed to the connection, or the stream was ended: nothing follows. */
  #over = false;
  /** The request id went to the store (with the first event). */
  #told = false;
  /** The client holds an event id of this stream, so it can resume. */
  #idSent = false;
  #chain: Promise<void> | undefined;
  /** Id of the newest event sent on this stream: a fresh connection primes with it, not with 0. */
  #lastId: string | undefined;

  constructor(session: Session, id: string, config: StreamConfig, owner?: StreamOwner) {
    this.session = session;
    this.id = id;
    this.#config = config;
    this.owner = owner;
  }

  get connected(): boolean {
    return this.#live !== undefined || this.#remote !== undefined;
  }

  /** Id of the newest event sent on this stream. */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** True when a dropped connection can be resumed with Last-Event-ID. */
  get resumable(): boolean {
    return this.#config.eventStore !== undefined && this.#idSent && !this.session.aborted;
  }

  /**
   * Opens a new HTTP connection for this stream, replacing a live one (which is ended). A GET's
   * `load` (its place among its principal's requests in flight) is held while it is open.
   */
  connect(signal: AbortSignal | undefined, prime = true, load?: RequestLoad): Response {
    this.#detach(true);
    this.#endRemote();
    const settings = this.#config.streams;
    const live = new SseStream(this, settings.keepAliveMs, settings.maxQueuedBytes);
    this.#live = live;
    this.#signal = signal;
    load?.retain();
    this.#load = load;
    signal?.addEventListener('abort', this);
    this.session.enter();
    this.session.connections++;
    settings.counters.openStreams++;
    // 2025-11-25: a priming event gives the client an id to resume from before anything else.
    if (
      prime &&
      this.#config.eventStore &&
      REVISION_RULES.primedStreams(this.session.protocolVersion)
    ) {
      live.write(encodePriming(this.#lastId ?? `${this.id}-0`, this.#config.retryMs));
      this.#idSent = true;
    }
    return new Response(live.readable, {
      status: 200,
      headers: SSE_HEADERS,
    });
  }

  /** Replays stored events after `lastEventId` onto a new connection, then goes on live. */
  async resume(
    lastEventId: string,
    signal: AbortSignal | undefined,
    load?: RequestLoad,
  ): Promise<Response> {
    const store = this.#config.eventStore;
    const replay = store ? await store.replay(this.session.id, lastEventId) : undefined;
    // No priming on a resume: the client's last id must stay where the replay leaves it.
    const response = this.connect(signal, false, load);
    // Written as the client reads them: a long replay is not a stalled client.
    this.#live?.replay(replay?.events ?? []);
    this.#config.streams.counters.resumed++;
    this.owner?.resumed();
    if (this.#done) this.#detach(false);
    return response;
  }

  /** A comment on the live connection (not stored): flushes headers, probes the connection. */
  comment(): void {
    this.#live?.write(KEEP_ALIVE);
  }

  /**
   * Sends one message; stored first when there is an EventStore, so order is kept either way.
   * `coalescing` lets a slow reader's live connection skip stale progress or logs (the store
   * keeps them all for a resume).
   */
  send(message: string, coalescing?: Coalescing): void {
    this.#send(message, coalescing, false);
  }

  #send(message: string, coalescing: Coalescing, final: boolean): void {
    const store = this.#config.eventStore;
    if (!store) {
      this.#deliver(message, undefined, coalescing, final);
      return;
    }
    if (this.#chain) {
      this.#chain = this.#chain.then(() => this.#store(store, message, coalescing, final));
      return;
    }
    const id = store.append(this.session.id, this.id, message, this.#info(final));
    if (typeof id === 'string') this.#write(message, id, coalescing, final);
    else
      this.#chain = id.then(
        (value) => this.#write(message, value, coalescing, final),
        () => this.#unstored(message, final),
      );
  }

  /** Sends the final message and ends the stream once it is out. */
  finish(message: string): void {
    this.#send(message, undefined, true);
    this.#done = true;
    if (this.#chain) void this.#chain.then(() => this.#detach(false));
    else this.#detach(false);
  }

  /** Ends the live connection without a final message (session over, shutdown, cancel). */
  end(): void {
    this.#done = true;
    this.#over = true;
    this.#detach(false);
    this.#endRemote();
  }

  /**
   * Another instance's relay becomes this stream's connection: a live one here is closed (its
   * client moved), a pending disconnect grace is cleared. False when the stream is over.
   */
  attachRemote(sink: RemoteSink): boolean {
    if (this.#over || this.session.aborted) return false;
    this.#detach(true);
    this.#endRemote();
    this.#remote = sink;
    // The relay's client resumed with an event id of this stream: it can resume again.
    this.#idSent = true;
    this.owner?.resumed();
    return true;
  }

  /** The relay's client left or was cut: the same policy as a live connection dropping. */
  remoteDropped(sink: RemoteSink, why: 'disconnect' | 'stream-overflow'): void {
    if (sink !== this.#remote) return;
    this.#remote = undefined;
    if (!this.#done) this.owner?.streamDropped(this.resumable, why);
  }

  /** SseOwner: the client's connection went away. */
  disconnected(stream: SseStream): void {
    if (stream !== this.#live) return;
    this.#detach(false);
    if (!this.#done) this.owner?.streamDropped(this.resumable, 'disconnect');
  }

  /**
   * SseOwner: the client stopped reading. Its connection is cut (what was queued is dropped:
   * every event is in the store, so a resume with Last-Event-ID loses nothing) and the request's
   * owner applies the disconnect policy.
   */
  overflowed(stream: SseStream): void {
    if (stream !== this.#live) return;
    this.#config.streams.counters.overflowed++;
    this.#detach(false, new RequestAbortedError('stream-overflow'));
    if (!this.#done) this.owner?.streamDropped(this.resumable, 'stream-overflow');
  }

  /** `request.signal` of the current connection aborted (some runtimes only report it there). */
  handleEvent(): void {
    const live = this.#live;
    if (live) this.disconnected(live);
  }

  async #store(
    store: EventStore,
    message: string,
    coalescing: Coalescing,
    final: boolean,
  ): Promise<void> {
    let id: string;
    try {
      id = await store.append(this.session.id, this.id, message, this.#info(final));
    } catch {
      this.#unstored(message, final);
      return;
    }
    this.#write(message, id, coalescing, final);
  }

  /** What the store is told besides the message: the final mark, the request with the first. */
  #info(final: boolean): AppendInfo | undefined {
    if (final) return FINAL;
    const owner = this.owner;
    if (this.#told || !owner) return undefined;
    this.#told = true;
    return { requestId: owner.id };
  }

  /**
   * The store failed to keep `message`: it still goes out, without an id (it cannot be replayed),
   * and the chain goes on, so later messages and the stream's end are not held up.
   */
  #unstored(message: string, final: boolean): void {
    this.#deliver(message, undefined, undefined, final);
  }

  #write(message: string, id: string, coalescing: Coalescing, final: boolean): void {
    this.#idSent = true;
    this.#lastId = id;
    this.#deliver(message, id, coalescing, final);
  }

  /** Hands a message to the connection: the live one here, or another instance's relay. */
  #deliver(message: string, id: string | undefined, coalescing: Coalescing, final: boolean): void {
    const remote = this.#remote;
    if (remote) {
      // The relay ends its connection after the final message by itself.
      if (final) this.#remote = undefined;
      remote.send(message, id, final);
    } else this.#live?.send(message, id, coalescing);
    if (final) this.#over = true;
  }

  /** Lets go of a relay elsewhere, which ends its connection (no final message). */
  #endRemote(): void {
    const remote = this.#remote;
    if (!remote) return;
    this.#remote = undefined;
    remote.end();
  }

  /** Lets go of the live connection: closed normally, or cut (`discard`) for a slow reader. */
  #detach(replaced: boolean, discard?: RequestAbortedError): void {
    const live = this.#live;
    if (!live) return;
    this.#live = undefined;
    this.#signal?.removeEventListener('abort', this);
    this.#signal = undefined;
    this.#load?.release();
    this.#load = undefined;
    this.session.leave();
    this.session.connections--;
    const counters = this.#config.streams.counters;
    counters.openStreams--;
    counters.dropped += live.dropped;
    if (discard) live.discard(discard);
    else if (replaced || live.open) live.close();
  }
}
