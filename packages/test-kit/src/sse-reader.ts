import { type SseEvent, SseParser } from './sse-parser.ts';

/** A JSON-RPC message read from a stream, with its event's id (what Last-Event-ID resumes after). */
export type SseMessage = Record<string, any> & { _eventId?: string };

/**
 * Reads the events of an SSE body as they arrive. Reads end at the end of the stream: `next()`
 * and `message()` answer undefined, and the methods that wait for something (`messages`,
 * `until`) throw instead of waiting for ever.
 */
export class SseReader implements AsyncIterable<SseMessage> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #parser = new SseParser();
  readonly #queue: SseEvent[] = [];
  #ended = false;
  /** True once `next()` has reported the end of the stream. */
  done = false;

  constructor(source: Response | ReadableStream<Uint8Array>) {
    const body = source instanceof Response ? source.body : source;
    if (!body) throw new Error('the response has no body');
    this.#reader = body.getReader();
  }

  /** The next event (comments skipped); undefined at the end of the stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const event = this.#queue.shift();
      if (event) return event;
      if (this.#ended) {
        this.done = true;
        return undefined;
      }
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#ended = true;
        this.#queue.push(...this.#parser.push(this.#decoder.decode()), ...this.#parser.end());
      } else {
        this.#queue.push(...this.#parser.push(this.#decoder.decode(value, { stream: true })));
      }
    }
  }

  /** The next event carrying a JSON-RPC message (priming events skipped), parsed. */
  async message(): Promise<SseMessage | undefined> {
    for (;;) {
      const event = await this.next();
      if (!event) return undefined;
      if (event.data.trim() === '') continue;
      const message = JSON.parse(event.data) as SseMessage;
      if (event.id !== undefined) message._eventId = event.id;
      return message;
    }
  }

  /** The next `count` messages; throws if the stream ends first. */
  async messages(count: number): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    while (out.length < count) {
      const message = await this.message();
      if (!message) throw new Error(`the stream ended after ${out.length} of ${count} messages`);
      out.push(message);
    }
    return out;
  }

  /** Reads up to and including the first message matching `predicate`; throws if the stream ends first. */
  async until(predicate: (message: SseMessage) => boolean, what = 'the expected message') {
    for (;;) {
      const message = await this.message();
      if (!message) throw new Error(`the stream ended before ${what}`);
      if (predicate(message)) return message;
    }
  }

  /** Reads to the end; the messages seen. */
  async rest(): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    for (let m = await this.message(); m; m = await this.message()) out.push(m);
    return out;
  }

  /** The messages up to the end of the stream. */
  async *[Symbol.asyncIterator](): AsyncIterator<SseMessage> {
    for (let m = await this.message(); m; m = await this.message()) yield m;
  }

  /** Drops the stream (the client goes away). */
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}
