/**
 * The light request the Deno and Bun adapters hand the core's fast entry: the runtime's own
 * `Request`, read through, except for the body, which the runtime reads whole natively
 * (`request.text()`) instead of the core pulling it chunk by chunk through a `ReadableStream`
 * reader (on Bun the stream machinery cost more than the rest of a `tools/call`). Runtime-neutral:
 * Web APIs only.
 *
 * @module
 */
import {
  BodyTooLargeError,
  type HANDLE,
  type IncomingRequest,
  readBody,
} from '@edge-mcp/core/adapter';
import { causedByDisconnect, internalErrorResponse } from './serve.ts';
import type { ErrorReporter, FetchHandler } from './types.ts';

/** The core's fast entry, as the adapters find it on a handler. */
export type FastEntry = NonNullable<FetchHandler[typeof HANDLE]>;

export class WebIncoming implements IncomingRequest {
  readonly #request: Request;

  constructor(request: Request) {
    this.#request = request;
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
  readText(limit: number): Promise<string> {
    const request = this.#request;
    const declared = request.headers.get('content-length');
    if (declared === null) return readBody(request, limit);
    if (Number(declared) > limit) return Promise.reject(new BodyTooLargeError(limit));
    return request.text();
  }
}

/**
 * Answers `request` through the core's fast entry with the runtime's `Request` read through
 * ({@link WebIncoming}): a complete answer (plain data) becomes one `Response` with its text, a
 * streamed one goes through `streamed` (the Bun adapter makes its head leave at once). A handler
 * that throws gets a JSON-RPC 500, reported unless the client's departure caused it. Never
 * rejects.
 */
export async function answerFast(
  handler: FetchHandler,
  entry: FastEntry,
  request: Request,
  report: ErrorReporter,
  streamed: (response: Response) => Response = (response) => response,
): Promise<Response> {
  try {
    const reply = await entry.call(handler, new WebIncoming(request));
    if (reply instanceof Response) return streamed(reply);
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  } catch (error) {
    if (!causedByDisconnect(request, error)) report(error);
    return internalErrorResponse();
  }
}
