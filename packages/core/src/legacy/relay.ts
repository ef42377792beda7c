import { RequestAbortedError } from '../lifecycle/abort-reason.ts';
import { ErrorCode, REVISION_RULES } from '../protocol/constants.ts';
import { errorMessage } from '../protocol/jsonrpc.ts';
import { parseEventId, type ReplayedEvents } from '../sessions/event-store.ts';
import type { RemoteSink, RemoteStreamLink, Session } from '../sessions/session.ts';
import { encodePriming } from '../sse/encoder.ts';
import { SSE_HEADERS, type SseOwner, SseStream } from '../sse/stream.ts';
import type { StreamConfig } from './stream.ts';

/** The answer a client gets for a request whose instance stopped before answering it. */
const INSTANCE_LOST = {
  code: ErrorCode.InternalError,
  message: 'The server instance running this request stopped',
  data: { reason: 'instance-lost' },
};

/**
 * A GET (or resume) on this instance of a stream another instance holds (`SessionCluster.link`
 * answered with a link): the client's connection is here, the stream's events come from the
 * holder. With `lastEventId`, what the store has after it is replayed first, then the forwarded
 * events newer than the replay (an event both stored before the read and forwarded is written
 * once, by its sequence number). Ends with the stream's final message, or when the holder ends
 * it; the client leaving is told to the holder, which applies its disconnect policy.
 */
export async function relay(
  session: Session,
  streamId: string,
  lastEventId: string | undefined,
  link: RemoteStreamLink,
  config: StreamConfig,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const relay = new Relay(session, link, config, signal, lastEventId !== undefined);
  const response = new Response(relay.live.readable, { status: 200, headers: SSE_HEADERS });
  link.open(relay);
  const store = config.eventStore;
  if (lastEventId === undefined) {
    // A fresh connection of the standalone stream: primed with the holder's newest id.
    if (store && REVISION_RULES.primedStreams(session.protocolVersion))
      relay.live.write(encodePriming(link.lastId ?? `${streamId}-0`, config.retryMs));
    return response;
  }
  let replay: ReplayedEvents | undefined;
  try {
    replay = store ? await store.replay(session.id, lastEventId) : undefined;
  } catch {
    // Unreadable now: the forwarded events still go out; the client may resume again.
  }
  config.streams.counters.resumed++;
  relay.replayed(lastEventId, replay);
  return response;
}

/**
 * The holder of a request stream is gone before its final message: the request will never be
 * answered. Unless the store already has the stream's end, an error answer naming the request is
 * stored as its final message (so this and every later resume replays it), and the caller then
 * replays the stream to its end.
 */
export async function endOrphan(
  session: Session,
  lastEventId: string,
  config: StreamConfig,
): Promise<void> {
  const store = config.eventStore;
  if (!store) return;
  try {
    const replay = await store.replay(session.id, lastEventId);
    if (!replay || replay.finished || replay.requestId === undefined) return;
    const message = errorMessage(replay.requestId, INSTANCE_LOST);
    await store.append(session.id, replay.streamId, message, { final: true });
  } catch {
    // Not stored: the replay ends without it; a later resume tries again.
  }
}

type Forwarded = readonly [message: string, id: string | undefined, final: boolean];

class Relay implements SseOwner, RemoteSink {
  readonly live: SseStream;
  readonly #session: Session;
  readonly #link: RemoteStreamLink;
  readonly #config: StreamConfig;
  #signal: AbortSignal | undefined;
  /** Forwarded events held until the replay is written (undefined once live). */
  #held: Forwarded[] | undefined;
  #heldBytes = 0;
  /** Sequence number of the newest event written: forwarded ones at or below it were replayed. */
  #seq = -1;
  /** The holder ended the stream while the replay was being read: end once it is written. */
  #ending = false;
  #attached = true;
  /** What the session's end (or this instance's shutdown) calls: the client is cut here. */
  readonly #member = { end: () => this.#cut() };

  constructor(
    session: Session,
    link: RemoteStreamLink,
    config: StreamConfig,
    signal: AbortSignal | undefined,
    replaying: boolean,
  ) {
    this.#session = session;
    this.#link = link;
    this.#config = config;
    const settings = config.streams;
    this.live = new SseStream(this, settings.keepAliveMs, settings.maxQueuedBytes);
    this.#held = replaying ? [] : undefined;
    session.enter();
    session.connections++;
    session.relays.add(this.#member);
    settings.counters.openStreams++;
    this.#signal = signal;
    signal?.addEventListener('abort', this);
    if (session.aborted) this.#cut();
  }

  /** The store's events after `lastEventId` are written; then what was forwarded meanwhile. */
  replayed(lastEventId: string, replay: ReplayedEvents | undefined): void {
    this.#seq = parseEventId(lastEventId)?.seq ?? -1;
    const events = replay?.events ?? [];
    const last = events[events.length - 1];
    if (last) this.#seq = parseEventId(last.id)?.seq ?? this.#seq;
    // Written as the client reads them: a long replay is not a stalled client.
    this.live.replay(events);
    const held = this.#held ?? [];
    this.#held = undefined;
    if (replay?.finished) {
      this.#close();
      return;
    }
    for (const [message, id, final] of held) this.#forward(message, id, final);
    if (this.#ending) this.#close();
  }

  /** RemoteSink: an event of the stream, from its holder. */
  send(message: string, id: string | undefined, final: boolean): void {
    if (!this.#attached) return;
    const held = this.#held;
    if (!held) {
      this.#forward(message, id, final);
      return;
    }
    held.push([message, id, final]);
    this.#heldBytes += message.length;
    // Bounded like a stream's queue: over it the client is cut and resumes again.
    if (this.#heldBytes > this.#config.streams.maxQueuedBytes) this.overflowed(this.live);
  }

  /** RemoteSink: the holder ends the stream without a final message. */
  end(): void {
    if (this.#held) this.#ending = true;
    else this.#close();
  }

  /**
   * The session ended here, or this instance shuts down: the connection ends, and the holder is
   * told its client left (it applies its disconnect policy; a session over everywhere ignores it).
   */
  #cut(): void {
    if (!this.#attached) return;
    this.#held = undefined;
    this.#close();
    this.#link.close('disconnect');
  }

  /** SseOwner: the client left. */
  disconnected(stream: SseStream): void {
    if (stream !== this.live || !this.#attached) return;
    this.#detach();
    this.#link.close('disconnect');
  }

  /** SseOwner: the client stopped reading; it is cut and resumes with Last-Event-ID. */
  overflowed(stream: SseStream): void {
    if (stream !== this.live || !this.#attached) return;
    this.#config.streams.counters.overflowed++;
    this.#held = undefined;
    this.live.discard(new RequestAbortedError('stream-overflow'));
    this.#detach();
    this.#link.close('stream-overflow');
  }

  /** `request.signal` of the connection aborted. */
  handleEvent(): void {
    this.disconnected(this.live);
  }

  #forward(message: string, id: string | undefined, final: boolean): void {
    const seq = id === undefined ? undefined : parseEventId(id)?.seq;
    if (seq !== undefined) {
      if (seq <= this.#seq) {
        // Replayed already; a final one still ends the stream.
        if (final) this.#close();
        return;
      }
      this.#seq = seq;
    }
    this.live.send(message, id);
    if (final) this.#close();
  }

  /** Ends the connection once what is queued is out. */
  #close(): void {
    if (!this.#attached) return;
    this.#detach();
    this.live.close();
  }

  #detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    this.#signal?.removeEventListener('abort', this);
    this.#signal = undefined;
    const session = this.#session;
    session.relays.delete(this.#member);
    session.leave();
    session.connections--;
    const counters = this.#config.streams.counters;
    counters.openStreams--;
    counters.dropped += this.live.dropped;
  }
}
