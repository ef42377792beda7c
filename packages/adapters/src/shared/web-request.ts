/**
 * The light request the Deno and Bun adapters hand the core's fast entry (and Hono's `mcp()` on
 * those runtimes): the runtime's own `Request`, read through, except for the body, which the
 * runtime reads whole natively (`request.text()`) instead of the core pulling it chunk by chunk
 * through a `ReadableStream` reader (on Bun the stream machinery cost more than the rest of a
 * `tools/call`), and the client's address. Runtime-neutral: Web APIs only, so Workers code that
 * imports Hono's entry type-checks with it.
 *
 * @module
 */
import {
  type BodyCharge,
  BodyTooLargeError,
  type IncomingRequest,
  readBody,
} from '@edge-mcp/core/adapter';

/**
 * Where the client's address comes from: the runtime gave it (Deno's `info.remoteAddr`), or the
 * server is asked for it when the core wants it (Bun's `server.requestIP()`).
 */
export type RemoteAddress =
  | string
  | { requestIP(request: Request): { readonly address: string } | null }
  | undefined;

export class WebIncoming implements IncomingRequest {
  readonly #request: Request;
  readonly #remote: RemoteAddress;

  constructor(request: Request, remote?: RemoteAddress) {
    this.#request = request;
    this.#remote = remote;
  }

  get remoteAddress(): string | undefined {
    const remote = this.#remote;
    return typeof remote === 'object' ? remote.requestIP(this.#request)?.address : remote;
  }

  get method(): string {
    return this.#request.method;
  }

  get url(): string {
    return this.#request.url;
  }

  get headers(): Headers {
    return this.#request.headers;
  }

  /** The runtime's disconnect signal (made by the runtime on first read). */
  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#request.body;
  }

  /**
   * The whole body as text, refusing more than `limit` bytes: a declared Content-Length is
   * checked before anything is read (the runtime then reads exactly that many bytes, natively); a
   * body without one (chunked) is read as a stream and refused the moment it grows past `limit`.
   */
  readText(limit: number, charge?: BodyCharge): Promise<string> {
    const request = this.#request;
    const declared = request.headers.get('content-length');
    if (declared === null) return readBody(request, limit, charge);
    if (Number(declared) > limit) return Promise.reject(new BodyTooLargeError(limit));
    return request.text();
  }
}
