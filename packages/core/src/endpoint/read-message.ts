/**
 * A POST's message: the checks of its method and headers, its body read within the size limit
 * and the in-flight byte budget, and parsed.
 *
 * @module
 */
import { BodyTooLargeError, BudgetExceededError, readBody } from '../http/body.ts';
import { isJsonContentType } from '../http/guards.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Reply, refuse } from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { ErrorCode, HEADER } from '../protocol/constants.ts';
import { classify, type JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { notAllowed, overBytes } from './admission.ts';
import type { RoutedEndpoint } from './routed-endpoint.ts';

/**
 * A POST's JSON-RPC message (or batch), after the method, Content-Type, Accept and size checks,
 * or the refusal.
 */
export async function readMessage(
  core: RoutedEndpoint,
  request: IncomingRequest,
  held: RequestLoad,
): Promise<JsonRpcMessage | unknown[] | Reply> {
  if (request.method !== 'POST') return notAllowed(core);
  if (!isJsonContentType(request.headers.get(HEADER.contentType)))
    return refuse(
      'content-type',
      415,
      ErrorCode.InvalidRequest,
      'Content-Type must be application/json',
    );
  if (!core.accept.acceptsBoth(request.headers.get(HEADER.accept)))
    return refuse(
      'accept',
      406,
      ErrorCode.InvalidRequest,
      'Accept must list both application/json and text/event-stream',
    );
  // A declared length is charged before anything is read; a chunked body chunk by chunk.
  const declared = declaredLength(request);
  if (declared !== undefined && declared <= core.maxBodyBytes && !held.take(declared))
    return overBytes(core, held);
  let text: string;
  try {
    text = await readBody(request, core.maxBodyBytes, declared === undefined ? held : undefined);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return refuse('body-too-large', 413, ErrorCode.InvalidRequest, error.message);
    if (error instanceof BudgetExceededError) return overBytes(core, held);
    return refuse('body-unreadable', 400, ErrorCode.ParseError, 'Could not read the request body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse(
      'parse-error',
      400,
      ErrorCode.ParseError,
      'Parse error: the body is not valid JSON',
    );
  }
  if (Array.isArray(value)) return value;
  return (
    classify(value) ??
    refuse(
      'invalid-message',
      400,
      ErrorCode.InvalidRequest,
      'The body is not a JSON-RPC 2.0 request or notification',
    )
  );
}

/** A usable Content-Length, or `undefined` (none, or one that says nothing). */
function declaredLength(request: IncomingRequest): number | undefined {
  const value = request.headers.get(HEADER.contentLength);
  if (value === null) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
