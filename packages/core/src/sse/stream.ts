import { unrefTimer } from '../lifecycle/timers.ts';
import { encodeEvent, KEEP_ALIVE } from './encoder.ts';

/** Response headers for every SSE answer. `X-Accel-Buffering: no` keeps nginx-style proxies from buffering. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** Whoever a stream answers for, told when its client goes away or stops reading. */
export interface SseOwner {
  /** The client went away while the stream was open. */
  disconnected(stream: SseStream): void;
  /**
   * The client stopped reading: more than the stream's byte bound is queued. The stream is still
   * open; the owner ends it its own way (a final error, or a cut the client resumes from).
   */
  overflowed(stream: SseStream): void;
}

/**
 * How a notification may be treated while the client reads slower than the server writes:
 * `progress` keeps only the newest one until the client catches up, `log` is dropped; anything
 * else (results, requests, list changes) is always queued, up to the stream's bound.
 */
export type Coalescing = 'progress' | 'log' | undefined;

/** Shared keep-alive tick: `setInterval` passes the stream, so no closure per stream. */
function keepAlive(stream: SseStream): void {
  stream.keepAlive();
}

/**
 * A client this far behind is reading slower than the server writes: a few notifications queued
 * by a client that reads a little late (or a buffering proxy) are delivered as they are.
 */
const SOFT_QUEUE_BYTES = 64 * 1024;

function byteLength(chunk: Uint8Array): number {
  return chunk.byteLength;
}

/**
 * A server-sent-events body on Web Streams, bounded in bytes.
 *
 * The consumer cancelling the body (the runtime noticed the client left) is reported to the owner
 * (`disconnected()`); on workerd this is the only disconnect signal there is. After `close()` or a
 * cancel every write is a no-op, so nothing is written for a request once it is cancelled.
 * Keep-alive comments go out every `keepAliveMs` while the stream is open and nothing waits.
 *
 * Backpressure: the runtime reads the body as fast as the connection takes it, so bytes queue
 * here only when the client reads slower than the server writes. Past 64 KiB queued, progress
 * notifications are coalesced (the newest waits for the client) and log messages dropped; once
 * more than `maxQueuedBytes` are queued the owner is told (`overflowed()`) and decides how the
 * stream ends.
 */
export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #overflowed = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #owner: SseOwner;
  readonly #limit: number;
  /** Queued bytes from which progress is coalesced and logs dropped. */
  readonly #soft: number;
  /** The newest progress notification, held while the client is behind. */
  #held: Uint8Array | undefined;
  /**
   * Messages waiting behind a replay (resumption): written as the client reads, not queued all at
   * once, so a long replay is not mistaken for a stalled client. Live messages that arrive during
   * it wait behind it, counted against the bound.
   */
  #backlog: Array<readonly [json: string, id: string | undefined]> | undefined;
  #next = 0;
  /** Entries of the backlog that are the replay itself (the store's; not counted as queued). */
  #replayed = 0;
  /** Characters of live messages waiting behind the replay. */
  #backlogBytes = 0;
  /** `close()` came during a replay: the stream ends once the backlog is out. */
  #closeAfterBacklog = false;
  #pumping = false;
  /** Notifications coalesced or dropped so far (for the handler's stats). */
  dropped = 0;

  constructor(owner: SseOwner, keepAliveMs: number, maxQueuedBytes: number) {
    this.#owner = owner;
    this.#limit = maxQueuedBytes;
    this.#soft = Math.min(SOFT_QUEUE_BYTES, maxQueuedBytes / 2);
    this.readable = new ReadableStream<Uint8Array>(this, {
      highWaterMark: maxQueuedBytes,
      size: byteLength,
    });
    // A keep-alive must never be what keeps a Node process alive.
    if (keepAliveMs > 0) this.#timer = unrefTimer(setInterval(keepAlive, keepAliveMs, this));
  }

  get open(): boolean {
    return this.#open;
  }

  /** Bytes written but not yet taken by the consumer. */
  get queuedBytes(): number {
    return this.#open ? this.#limit - (this.#controller.desiredSize ?? 0) : 0;
  }

  /** UnderlyingSource.start */
  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  /** UnderlyingSource.pull: the consumer took bytes; the backlog and a held progress go out. */
  pull(): void {
    if (this.#backlog !== undefined) this.#pump();
    const held = this.#held;
    if (held === undefined || this.#backlog !== undefined) return;
    this.#held = undefined;
    this.write(held);
  }

  /** Writes stored events as the client reads them (a resumption's replay), live ones after. */
  replay(events: ReadonlyArray<{ readonly id: string; readonly message: string }>): void {
    if (!this.#open || events.length === 0) return;
    this.#backlog ??= [];
    for (const event of events) this.#backlog.push([event.message, event.id]);
    this.#replayed = this.#backlog.length;
    this.#pump();
  }

  #pump(): void {
    // An enqueue hands a chunk to a waiting reader, which may call pull() (and so this) again at
    // once: the outer call goes on, the inner one must not.
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      this.#pumpBacklog();
    } finally {
      this.#pumping = false;
    }
  }

  #pumpBacklog(): void {
    const backlog = this.#backlog as Array<readonly [string, string | undefined]>;
    while (this.#open && this.#next < backlog.length) {
      const [json, id] = backlog[this.#next] as readonly [string, string | undefined];
      const chunk = encodeEvent(json, id);
      // Up to the bound and no further (one event always fits an empty queue): the replay is
      // paced by the reader, never taken for a stalled one.
      if (this.queuedBytes > 0 && chunk.byteLength > (this.#controller.desiredSize ?? 0)) break;
      this.#next++;
      if (this.#next > this.#replayed) this.#backlogBytes -= json.length;
      try {
        this.#controller.enqueue(chunk);
      } catch {
        this.#finish();
        return;
      }
    }
    if (this.#next >= backlog.length) {
      this.#backlog = undefined;
      this.#next = 0;
      this.#replayed = 0;
      this.#backlogBytes = 0;
      if (this.#closeAfterBacklog) this.close();
    }
  }

  /** UnderlyingSource.cancel: the reader went away, i.e. the client disconnected. */
  cancel(): void {
    if (!this.#open) return;
    this.#finish();
    this.#owner.disconnected(this);
  }

  /** Writes one JSON-RPC message; returns false when the stream is already closed. */
  send(json: string, id?: string, coalescing?: Coalescing): boolean {
    if (!this.#open) return false;
    if (this.#backlog !== undefined) {
      // Order: behind the replay. Bounded like the queue itself.
      this.#backlog.push([json, id]);
      this.#backlogBytes += json.length;
      if (!this.#overflowed && this.#backlogBytes > this.#limit) {
        this.#overflowed = true;
        this.#owner.overflowed(this);
      }
      return true;
    }
    if (coalescing !== undefined && this.queuedBytes > this.#soft) {
      // Behind: the client would read a backlog of stale notifications.
      if (coalescing === 'log' || this.#held !== undefined) this.dropped++;
      if (coalescing === 'progress') this.#held = encodeEvent(json, id);
      return true;
    }
    const held = this.#held;
    if (held !== undefined) {
      // A held progress is older than what is sent now: it goes first (or is superseded).
      this.#held = undefined;
      if (coalescing === 'progress') this.dropped++;
      else this.write(held);
    }
    return this.write(encodeEvent(json, id));
  }

  write(chunk: Uint8Array): boolean {
    if (!this.#open) return false;
    try {
      this.#controller.enqueue(chunk);
    } catch {
      this.#finish();
      return false;
    }
    if (!this.#overflowed && (this.#controller.desiredSize ?? 0) < 0) {
      this.#overflowed = true;
      this.#owner.overflowed(this);
    }
    return true;
  }

  /** A keep-alive comment, unless the client has not even read what waits for it. */
  keepAlive(): void {
    if (this.queuedBytes === 0) this.write(KEEP_ALIVE);
  }

  /** Ends the stream normally (after the final response), once the client has read it all. */
  close(): void {
    if (!this.#open) return;
    if (this.#backlog !== undefined) {
      // What the replay has not written yet still goes out first, as the client reads it.
      this.#closeAfterBacklog = true;
      return;
    }
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) this.write(held);
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // Already errored or cancelled by the consumer.
    }
  }

  /**
   * Ends the stream at once, discarding what is queued (a client too slow to read it): the
   * runtime cuts the connection with `reason`.
   */
  discard(reason: unknown): void {
    if (!this.#open) return;
    this.#finish();
    this.#held = undefined;
    this.#backlog = undefined;
    try {
      this.#controller.error(reason);
    } catch {}
  }

  #finish(): void {
    this.#open = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
