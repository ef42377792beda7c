import { encodeEvent, KEEP_ALIVE } from './encoder.ts';

/** Response headers for every SSE answer. `X-Accel-Buffering: no` keeps nginx-style proxies from buffering. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** Whoever a stream answers for, told when its client goes away. */
export interface SseOwner {
  /** The client went away while the stream was open. */
  disconnected(stream: SseStream): void;
}

/** Shared keep-alive tick: `setInterval` passes the stream, so no closure per stream. */
function keepAlive(stream: SseStream): void {
  stream.write(KEEP_ALIVE);
}

/**
 * A server-sent-events body on Web Streams.
 *
 * The consumer cancelling the body (the runtime noticed the client left) is reported to the owner
 * (`disconnected()`); on workerd this is the only disconnect signal there is. After `close()` or a
 * cancel every write is a no-op, so nothing is written for a request once it is cancelled.
 * Keep-alive comments go out every `keepAliveMs` while the stream is open.
 */
export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #owner: SseOwner;

  constructor(owner: SseOwner, keepAliveMs: number) {
    this.#owner = owner;
    this.readable = new ReadableStream<Uint8Array>(this, { highWaterMark: 0 });
    if (keepAliveMs > 0) {
      this.#timer = setInterval(keepAlive, keepAliveMs, this);
      // A keep-alive must never be what keeps a Node process alive.
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  get open(): boolean {
    return this.#open;
  }

  /** UnderlyingSource.start */
  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  /** UnderlyingSource.cancel: the reader went away, i.e. the client disconnected. */
  cancel(): void {
    if (!this.#open) return;
    this.#finish();
    this.#owner.disconnected(this);
  }

  /** Writes one JSON-RPC message; returns false when the stream is already closed. */
  send(json: string, id?: string): boolean {
    return this.write(encodeEvent(json, id));
  }

  write(chunk: Uint8Array): boolean {
    if (!this.#open) return false;
    try {
      this.#controller.enqueue(chunk);
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  /** Ends the stream normally (after the final response). */
  close(): void {
    if (!this.#open) return;
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // Already errored or cancelled by the consumer.
    }
  }

  #finish(): void {
    this.#open = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
