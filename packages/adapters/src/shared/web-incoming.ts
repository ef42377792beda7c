/**
 * How the Deno and Bun adapters answer through the core's fast entry, with the runtime's own
 * `Request` read through (`WebIncoming`, in web-request.ts).
 *
 * @module
 */
import type { HANDLE } from '@edge-mcp/core/adapter';
import { afterRefusal, type RefusedBody, refusesBody } from './refused-body.ts';
import { causedByDisconnect, internalErrorResponse } from './serve.ts';
import type { ErrorReporter, FetchHandler } from './types.ts';
import { type RemoteAddress, WebIncoming } from './web-request.ts';

/** The core's fast entry, as the adapters find it on a handler. */
export type FastEntry = NonNullable<FetchHandler[typeof HANDLE]>;

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
