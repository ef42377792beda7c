import type { AuthInfo } from '../auth/auth-info.ts';
import { BodyTooLargeError, readBody } from '../http/body.ts';
import { type CorsPolicy, withHeaders } from '../http/cors.ts';
import { acceptsBoth, checkHost, type HostPolicy, isJsonContentType } from '../http/guards.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  accepted,
  errorResponse,
  methodNotAllowed,
  overBudget,
  Reply,
  shuttingDown,
  storageUnavailable,
} from '../http/responses.ts';
import { pathOf } from '../http/url.ts';
import { handleBatch } from '../legacy/batch.ts';
import { handleLegacy } from '../legacy/dispatch.ts';
import type { LegacyEndpoint } from '../legacy/endpoint.ts';
import { handleDelete, handleGet } from '../legacy/get-delete.ts';
import { handleModern } from '../modern/dispatch.ts';
import type { ModernEndpoint } from '../modern/endpoint.ts';
import {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  HEADER,
  META,
  MODERN_VERSION,
} from '../protocol/constants.ts';
import { modernHeader } from '../protocol/era.ts';
import { classify, isObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.ts';
import type { ResourceServer } from '../server/resource-server.ts';
import { StoreUnavailableError } from '../sessions/session-manager.ts';

/** What routing reads of the endpoint, besides what the two eras read. */
export interface RoutedEndpoint extends ModernEndpoint, LegacyEndpoint {
  readonly policy: HostPolicy;
  /** Browser origins allowed to call (the `cors` option). */
  readonly cors: CorsPolicy | undefined;
  /** The endpoint's path; `undefined` serves every path. */
  readonly path: string | undefined;
  readonly maxBodyBytes: number;
  readonly legacyEnabled: boolean;
  /** Requests in flight now (streams included). */
  readonly inFlight: number;
}

/**
 * One HTTP request to the endpoint. With the `cors` option, a browser's preflight is answered
 * first and every answer to an allowed origin carries the CORS headers.
 */
export function route(
  core: RoutedEndpoint,
  request: IncomingRequest,
  routed: boolean,
  given: AuthInfo | undefined,
): Promise<Answer> {
  const cors = core.cors;
  // Not async: an async function returning serve's promise would add two microtask hops.
  if (cors === undefined) return serve(core, request, routed, given);
  return withCors(core, cors, request, routed, given);
}

async function withCors(
  core: RoutedEndpoint,
  cors: CorsPolicy,
  request: IncomingRequest,
  routed: boolean,
  given: AuthInfo | undefined,
): Promise<Answer> {
  const origin = request.headers.get('origin');
  if (request.method === 'OPTIONS' && !isMetadata(core, request)) return cors.preflight(request);
  const answer = await serve(core, request, routed, given);
  return origin !== null && cors.allows(origin)
    ? withHeaders(answer, cors.headers(origin))
    : answer;
}

/**
 * The guards every request passes (shutdown, path, Host/Origin, authentication, method, content
 * type, Accept, body size, JSON), then the era (`classifyEra`'s rule): a request carrying the
 * modern `_meta` (or header) is 2026-07-28; anything else is a legacy message, answered by its
 * session. `routed`: a framework already matched the path. `given`: the principal an integration
 * vouched for (else the handler's own `auth` authenticates).
 */
async function serve(
  core: RoutedEndpoint,
  request: IncomingRequest,
  routed: boolean,
  given: AuthInfo | undefined,
): Promise<Answer> {
  if (core.root.aborted) return shuttingDown();
  // The Protected Resource Metadata is public: any path the handler is mounted under, any origin.
  if (isMetadata(core, request)) return metadata(core, request);
  if (!routed && core.path !== undefined && pathOf(request.url) !== core.path)
    return errorResponse(
      404,
      ErrorCode.InvalidRequest,
      `Not found: the MCP endpoint is ${core.path}`,
    );
  const refused = checkHost(request, core.policy);
  if (refused) return errorResponse(403, ErrorCode.InvalidRequest, refused);
  if (core.inFlight >= core.limits.maxInFlight) {
    core.streams.counters.rejected++;
    return overBudget(
      503,
      `The server is at capacity (${core.limits.maxInFlight} requests in flight)`,
    );
  }
  let auth = given;
  if (core.resourceServer) {
    const authenticated = await core.resourceServer.authenticate(request, given);
    if (authenticated instanceof Reply) return authenticated;
    auth = authenticated;
  }
  const method = request.method;
  if (method === 'GET' || method === 'DELETE') {
    if (!core.legacyEnabled) return methodNotAllowed(core.allow);
    try {
      return await (method === 'GET'
        ? handleGet(core, request, auth)
        : handleDelete(core, request, auth));
    } catch (error) {
      return unavailable(error, undefined);
    }
  }
  if (method !== 'POST') return methodNotAllowed(core.allow);
  if (!isJsonContentType(request.headers.get(HEADER.contentType)))
    return errorResponse(415, ErrorCode.InvalidRequest, 'Content-Type must be application/json');
  if (!acceptsBoth(request.headers.get(HEADER.accept)))
    return errorResponse(
      406,
      ErrorCode.InvalidRequest,
      'Accept must list both application/json and text/event-stream',
    );
  let text: string;
  try {
    text = await readBody(request, core.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return errorResponse(413, ErrorCode.InvalidRequest, error.message);
    return errorResponse(400, ErrorCode.ParseError, 'Could not read the request body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorResponse(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
  }
  const headerSaysModern = modernHeader(request.headers);
  if (Array.isArray(value)) {
    if (core.legacyEnabled && !headerSaysModern) {
      try {
        return await handleBatch(core, request, value, auth);
      } catch (error) {
        return unavailable(error, undefined);
      }
    }
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
  // classifyEra's rule, with the header already read and the message already classified.
  const modern = (meta !== undefined && META.protocolVersion in meta) || headerSaysModern;
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
    // A synchronous answer is returned as it is; `return await` settles a promise in one
    // microtask hop, where returning the promise itself would take three.
    const answer = handleModern(core, request, message.message, meta ?? {}, auth);
    return answer instanceof Promise ? await answer : answer;
  }
  try {
    const answer = handleLegacy(core, request, message, auth);
    return answer instanceof Promise ? await answer : answer;
  } catch (error) {
    return unavailable(error, message.kind === 'request' ? message.message.id : undefined);
  }
}

/** Session storage that cannot be reached is a 503 with Retry-After; anything else is thrown on. */
function unavailable(error: unknown, id: RequestId | undefined): Reply {
  if (error instanceof StoreUnavailableError)
    return storageUnavailable(error.retryAfterSeconds, id);
  throw error;
}

function isMetadata(core: RoutedEndpoint, request: IncomingRequest): boolean {
  return core.resourceServer?.metadataPaths.has(pathOf(request.url)) ?? false;
}

/** GET (or HEAD) of the metadata document; its preflight, from any origin. */
function metadata(core: RoutedEndpoint, request: IncomingRequest): Answer {
  const server = core.resourceServer as ResourceServer;
  if (request.method === 'OPTIONS') return METADATA_PREFLIGHT;
  if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET');
  return server.metadata();
}

const METADATA_PREFLIGHT = new Reply(204, null, {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'mcp-protocol-version',
  'access-control-max-age': '3600',
});

/** A legacy request to a handler that serves 2026-07-28 only: name the versions it serves. */
function modernOnly(
  core: RoutedEndpoint,
  request: IncomingRequest,
  id: RequestId,
  rpc: { method: string; params?: JsonObject },
): Reply {
  const requested =
    rpc.method === 'initialize'
      ? rpc.params?.protocolVersion
      : (request.headers.get(HEADER.protocolVersion)?.trim() ?? DEFAULT_LEGACY_VERSION);
  return errorResponse(
    400,
    ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: core server speaks ${MODERN_VERSION}`,
    id,
    {
      supported: core.supported,
      requested,
    },
  );
}
