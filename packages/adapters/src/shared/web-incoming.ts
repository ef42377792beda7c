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
  type BodyCharge,
  BodyTooLargeError,
  type HANDLE,
  type IncomingRequest,
  readBody,
} from '@edge-mcp/core/adapter';
import { afterRefusal, type RefusedBody, refusesBody } from './refused-body.ts';
import { causedByDisconnect, internalErrorResponse } from './serve.ts';
import type { ErrorReporter, FetchHandler } from './types.ts';

/** The core's fast entry, as the adapters find it on a handler. */
export type FastEntry = NonNullable<FetchHandler[typeof HANDLE]>;

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

/** How a runtime's server answers through {@link answerFast}; one object per server. */
export interface FastServing {
  readonly report: ErrorReporter;
  /** What a streamed answer goes through (the Bun adapter makes its head leave at once). */
  readonly streamed: (response: Response) => Response;
  /** What the runtime allows with the rest of a refused upload. */
  readonly refused: RefusedBody;
}

/**
 * Answers `request` through the core's fast entry with the runtime's `Request` read through
 * ({@link WebIncoming}): a complete answer (plain data) becomes one `Response` with its text, a
 * streamed one goes through `serving.streamed`; an error answer to a request whose body may still
 * be arriving is followed by what the runtime allows (`afterRefusal`). A handler that throws gets
 * a JSON-RPC 500, reported unless the client's departure caused it. Never rejects.
 */
export async function answerFast(
  handler: FetchHandler,
  entry: FastEntry,
  request: Request,
  serving: FastServing,
  remote?: RemoteAddress,
): Promise<Response> {
  try {
    const reply = await entry.call(handler, new WebIncoming(request, remote));
    const response =
      reply instanceof Response
        ? reply
        : new Response(reply.body, { status: reply.status, headers: reply.headers });
    const sent = refusesBody(request, response.status)
      ? await afterRefusal(request, response, serving.refused)
      : response;
    return reply instanceof Response ? serving.streamed(sent) : sent;
  } catch (error) {
    if (!causedByDisconnect(request, error)) serving.report(error);
    return internalErrorResponse();
  }
}
