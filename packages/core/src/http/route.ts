import { handleBatch } from '../legacy/batch.ts';
import { handleLegacy } from '../legacy/dispatch.ts';
import { handleDelete, handleGet } from '../legacy/get-delete.ts';
import { handleModern } from '../modern/dispatch.ts';
import { ErrorCode, HEADER, META, MODERN_VERSION } from '../protocol/constants.ts';
import { classify, isObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.ts';
import { BodyTooLargeError, readBody } from './body.ts';
import { acceptsBoth, checkHost, isJsonContentType } from './guards.ts';
import type { HandlerCore } from './handler.ts';
import type { IncomingRequest } from './incoming.ts';
import {
  type Answer,
  accepted,
  errorResponse,
  methodNotAllowed,
  type Reply,
  shuttingDown,
} from './responses.ts';

/**
 * One HTTP request to the endpoint: the guards every request passes (shutdown, Host/Origin,
 * method, content type, Accept, body size, JSON), then the era: a request carrying the modern
 * `_meta` (or header) is 2026-07-28; anything else is a legacy message, answered by its session.
 */
export async function route(core: HandlerCore, request: IncomingRequest): Promise<Answer> {
  if (core.root.aborted) return shuttingDown();
  const refused = checkHost(request, core.policy);
  if (refused) return errorResponse(403, -32600, refused);
  const method = request.method;
  if (method === 'GET')
    return core.legacyEnabled ? handleGet(core, request) : methodNotAllowed(core.allow);
  if (method === 'DELETE')
    return core.legacyEnabled ? handleDelete(core, request) : methodNotAllowed(core.allow);
  if (method !== 'POST') return methodNotAllowed(core.allow);
  if (!isJsonContentType(request.headers.get('content-type')))
    return errorResponse(415, -32600, 'Content-Type must be application/json');
  if (!acceptsBoth(request.headers.get('accept')))
    return errorResponse(
      406,
      -32600,
      'Accept must list both application/json and text/event-stream',
    );
  let text: string;
  try {
    text = await readBody(request, core.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return errorResponse(413, -32600, error.message);
    return errorResponse(400, -32700, 'Could not read the request body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorResponse(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
  }
  const modernHeader = request.headers.get(HEADER.protocolVersion)?.trim() === MODERN_VERSION;
  if (Array.isArray(value)) {
    if (core.legacyEnabled && !modernHeader) return handleBatch(core, request, value);
    return errorResponse(
      400,
      ErrorCode.InvalidRequest,
      'Batches are not supported by core protocol revision',
    );
  }
  const message = classify(value);
  if (!message)
    return errorResponse(
      400,
      ErrorCode.InvalidRequest,
      'The body is not a JSON-RPC 2.0 request or notification',
    );
  const params = message.kind === 'response' ? undefined : message.message.params;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  // Modern: the request says so in `_meta` (or, having forgotten `_meta`, in the header).
  const modern = (meta !== undefined && META.protocolVersion in meta) || modernHeader;
  if (modern || !core.legacyEnabled) {
    if (message.kind === 'response')
      return errorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Clients must not send JSON-RPC responses',
      );
    // The modern era defines no client notifications over HTTP; accept and ignore them.
    if (message.kind === 'notification') return accepted();
    // Legacy-only input (a `_meta` without the version, e.g. a progress token, counts as legacy).
    if (!modern) return modernOnly(core, request, message.message.id, message.message);
    // `return await` settles in one microtask hop; returning the promise itself would take three.
    return await handleModern(core, request, message.message, meta ?? {});
  }
  return await handleLegacy(core, request, message);
}

/** A legacy request to a handler that serves 2026-07-28 only: name the versions it serves. */
function modernOnly(
  core: HandlerCore,
  request: IncomingRequest,
  id: RequestId,
  rpc: { method: string; params?: JsonObject },
): Reply {
  const requested =
    rpc.method === 'initialize'
      ? rpc.params?.protocolVersion
      : (request.headers.get(HEADER.protocolVersion) ?? '2025-03-26');
  return errorResponse(
    400,
    ErrorCode.UnsupportedProtocolVersion,
    'Unsupported protocol version: core server speaks 2026-07-28',
    id,
    {
      supported: core.supported,
      requested,
    },
  );
}
