/**
 * The answers a session Worker gives itself, before any handler or object runs: the refusals it
 * makes (answered by the isolate's core handler when it is one, so they reach its request log)
 * and the rest of a refused body drained first on workerd.
 */
import {
  type AdapterRefusal,
  BodyTooLargeError,
  ErrorCode,
  errorMessage,
  REFUSE,
  readBody,
} from '@edge-mcp/core/adapter';
import { toWebResponse } from '../shared/light-response.ts';
import { drained, refusesBody } from '../shared/refused-body.ts';
import type { FetchHandler } from '../shared/types.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The body as text, or the 413 answer to one larger than `limit`. */
export async function bodyText(
  handler: FetchHandler,
  request: Request,
  limit: number,
): Promise<string | Response> {
  try {
    return await readBody(request, limit);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return refusal(handler, request, 'body-too-large', error.message);
  }
}

/**
 * A refusal the Worker makes itself, answered by the handler (and so in its request log) when it
 * is the core's; any other fetch handler gets the plain JSON-RPC error.
 */
export function refusal(
  handler: FetchHandler,
  request: Request,
  reason: AdapterRefusal,
  message?: string,
  id?: string | number,
): Response {
  const refuse = handler[REFUSE];
  if (refuse) return toWebResponse(refuse.call(handler, request, reason, message, id));
  if (reason === 'body-too-large')
    return failure(413, ErrorCode.InvalidRequest, message ?? 'Request body too large');
  if (reason === 'session-unknown')
    return failure(404, ErrorCode.SessionNotFound, message ?? 'Session not found');
  // The codes the session managers answer their caps with (legacy/initialize.ts).
  if (reason === 'session-quota' || reason === 'session-limit') {
    const quota = reason === 'session-quota';
    const code = quota ? ErrorCode.ServerError : ErrorCode.InternalError;
    return new Response(errorMessage(id, { code, message: message ?? 'Too many sessions' }), {
      status: quota ? 429 : 503,
      headers: { ...JSON_HEADERS, 'retry-after': '1' },
    });
  }
  return failure(401, ErrorCode.ServerError, message ?? 'The access token was refused');
}

export function declaredOver(request: Request, limit: number): boolean {
  const declared = request.headers.get('content-length');
  return declared !== null && Number(declared) > limit;
}

/**
 * workerd: an answer sent while the request's body is still unread can break the isolate's next
 * request ("worker restarted mid-request", a 503 of its own); the rest of a refused body is read
 * first, within the refused-body bounds.
 */
export async function answered(request: Request, response: Response): Promise<Response> {
  if (refusesBody(request, response.status) && !request.bodyUsed) await drained(request);
  return response;
}

function failure(status: number, code: number, message: string): Response {
  return new Response(errorMessage(undefined, { code, message }), {
    status,
    headers: JSON_HEADERS,
  });
}
