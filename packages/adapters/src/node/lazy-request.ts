/**
 * A Web `Request` built only if something needs it. Frameworks such as Hono read `method`, `url`
 * and perhaps a header or two; those come straight from Node's `IncomingMessage`. `body` is a
 * stream that starts reading only when read: middleware that merely looks at it (Hono's
 * `bodyLimit()` asks `c.req.raw.body` before it checks Content-Length) keeps the light path.
 * Anything else (`clone()`, `json()`, `formData()`…) builds the real `Request` once and is served
 * by it. `instanceof Request` holds.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { IncomingRequest } from '@edge-mcp/core/adapter';
import { standInOnFirstUse } from '../shared/stand-in.ts';
import { LIGHT_INCOMING } from '../shared/types.ts';
import type { NodeIncoming } from './incoming.ts';
import { toHeaders } from './request.ts';

/** `duplex` is in the Fetch spec and required by Node for stream bodies, but not in lib.dom yet. */
type RequestInitWithDuplex = RequestInit & { duplex?: 'half' };

/** Reads the incoming body only when pulled (the incoming stream starts reading when it is made). */
class DeferredBody implements UnderlyingDefaultSource<Uint8Array> {
  readonly #incoming: NodeIncoming;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(incoming: NodeIncoming) {
    this.#incoming = incoming;
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.#reader ??= (this.#incoming.body as ReadableStream<Uint8Array>).getReader();
    const { done, value } = await this.#reader.read();
    if (done) controller.close();
    else controller.enqueue(value);
  }

  cancel(reason: unknown): Promise<void> {
    if (this.#reader) return this.#reader.cancel(reason);
    return this.#incoming.body?.cancel(reason) ?? Promise.resolve();
  }
}

/**
 * The lazy Request's body: a stream that takes nothing off the socket until it is read (a
 * high-water mark of 0), and that builds the real `Request` around itself the moment anybody
 * starts using it (a reader, a pipe, a tee, iteration), while it is still untouched, so that the
 * real one carries it whatever happens to it next.
 *
 * The class is defined on first use, not when the module loads: extending the global
 * `ReadableStream` loads Node 20's Web Streams (~4 ms of a cold start), which a server answering
 * through the core's fast entry never needs.
 */
function defineDeferredStream() {
  /** ReadableStream's own iteration methods. */
  const iterate = ReadableStream.prototype as unknown as {
    values(this: ReadableStream, ...args: unknown[]): AsyncIterableIterator<Uint8Array>;
    [Symbol.asyncIterator](
      this: ReadableStream,
      ...args: unknown[]
    ): AsyncIterableIterator<Uint8Array>;
  };

  return class DeferredStream extends ReadableStream<Uint8Array> {
    readonly #use: () => void;

    constructor(incoming: NodeIncoming, use: () => void) {
      super(new DeferredBody(incoming), { highWaterMark: 0 });
      this.#use = use;
    }

    override getReader(options: { mode: 'byob' }): ReadableStreamBYOBReader;
    override getReader(): ReadableStreamDefaultReader<Uint8Array>;
    override getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamReader<Uint8Array>;
    override getReader(options?: ReadableStreamGetReaderOptions): ReadableStreamReader<Uint8Array> {
      this.#use();
      return super.getReader(options);
    }

    override tee(): [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>] {
      this.#use();
      return super.tee();
    }

    override pipeTo(
      destination: WritableStream<Uint8Array>,
      options?: StreamPipeOptions,
    ): Promise<void> {
      this.#use();
      return super.pipeTo(destination, options);
    }

    override pipeThrough<T>(
      transform: ReadableWritablePair<T, Uint8Array>,
      options?: StreamPipeOptions,
    ): ReadableStream<T> {
      this.#use();
      return super.pipeThrough(transform, options);
    }

    // Iteration (for await…of, values()): not in every lib's typings, so reached through the base.
    override values(...args: unknown[]): AsyncIterableIterator<Uint8Array> {
      this.#use();
      return iterate.values.apply(this, args);
    }

    override [Symbol.asyncIterator](...args: unknown[]): AsyncIterableIterator<Uint8Array> {
      this.#use();
      return iterate[Symbol.asyncIterator].apply(this, args);
    }
  };
}

type DeferredStream = ReadableStream<Uint8Array>;
let DeferredStreamClass: ReturnType<typeof defineDeferredStream> | undefined;

export class LazyRequest {
  readonly #incoming: NodeIncoming;
  readonly #req: IncomingMessage;
  #headers: Headers | undefined;
  #request: Request | undefined;
  #body: DeferredStream | undefined;
  /** Set while the real Request is being built (its constructor may look at the body). */
  #building = false;

  constructor(incoming: NodeIncoming, req: IncomingMessage) {
    link();
    this.#incoming = incoming;
    this.#req = req;
  }

  /** The light request, for `mcp()`: only while the body is untouched (no real Request yet). */
  get [LIGHT_INCOMING](): IncomingRequest | undefined {
    return this.#request ? undefined : this.#incoming;
  }

  /**
   * The body ({@link DeferredStream}); null for GET and HEAD. Looking at it builds nothing;
   * using it builds the real Request around it.
   */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#request) return this.#request.body;
    return this.#deferred();
  }

  #deferred(): DeferredStream | null {
    const method = this.#incoming.method;
    if (method === 'GET' || method === 'HEAD') return null;
    DeferredStreamClass ??= defineDeferredStream();
    this.#body ??= new DeferredStreamClass(this.#incoming, () => {
      if (!this.#building) LazyRequest.real(this);
    });
    return this.#body;
  }

  get method(): string {
    return this.#incoming.method;
  }

  get url(): string {
    return this.#incoming.url;
  }

  get headers(): Headers {
    if (this.#request) return this.#request.headers;
    this.#headers ??= toHeaders(this.#req);
    return this.#headers;
  }

  get signal(): AbortSignal {
    return this.#incoming.signal;
  }

  /** The real `Request`, built once (with the body as a stream); it then answers for this one. */
  static real(lazy: LazyRequest): Request {
    if (!lazy.#request) {
      const incoming = lazy.#incoming;
      const init: RequestInitWithDuplex = {
        method: incoming.method,
        headers: lazy.headers,
        signal: incoming.signal,
      };
      // The stream handed out (or handed out from now on): whoever holds it reads the real body.
      const body = lazy.#deferred();
      if (body !== null) {
        init.body = body;
        init.duplex = 'half';
      }
      lazy.#building = true;
      try {
        lazy.#request = new Request(incoming.url, init);
      } finally {
        lazy.#building = false;
      }
    }
    return lazy.#request;
  }
}

// The rest of Request's interface, and the internal slots Node's own code reads (so that
// `new Request(lazy, init)` copies it), are answered by the real Request; `instanceof` holds.
const link = standInOnFirstUse(
  LazyRequest,
  () => Request,
  LazyRequest.real,
  () => new Request('http://localhost/'),
);
