import type { AuthInfo } from '../auth/auth-info.ts';
import { InvalidTokenError } from '../errors.ts';
import { BodyTooLargeError, BudgetExceededError, readBody } from '../http/body.ts';
import { type CorsPolicy, withHeaders } from '../http/cors.ts';
import { acceptsBoth, checkHost, type HostPolicy, isJsonContentType } from '../http/guards.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  accepted,
  methodNotAllowed,
  overBudget,
  Reply,
  refuse,
  refused,
  shuttingDown,
  storageUnavailable,
} from '../http/responses.ts';
import { pathOf } from '../http/url.ts';
import { handleBatch } from '../legacy/batch.ts';
import { handleLegacy } from '../legacy/dispatch.ts';
import type { LegacyEndpoint } from '../legacy/endpoint.ts';
import { handleDelete, handleGet } from '../legacy/get-delete.ts';
import { type InFlightLoad, RequestLoad } from '../lifecycle/in-flight-load.ts';
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
import {
  classify,
  isObject,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from '../protocol/jsonrpc.ts';
import { type ResourceServer, refuseToken } from '../server/resource-server.ts';
import { StoreUnavailableError } from '../sessions/session-manager.ts';

/**
 * What an integration in front of the handler says of a request's principal: who it is, that its
 * token was rejected (answered 401 with that reason), or nothing (the handler authenticates).
 */
export type Given = AuthInfo | InvalidTokenError | undefined;

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
  /** What the requests running hold (`limits.maxInFlightBytes`, `maxInFlightPerPrincipal`). */
  readonly load: InFlightLoad;
  /** Reports a request refused before its method ran (the request log, instrumentation). */
  refused(request: IncomingRequest, reply: Reply, message: JsonRpcMessage | undefined): void;
}

/**
 * One HTTP request to the endpoint. With the `cors` option, a browser's preflight is answered
 * first and every answer to an allowed origin carries the CORS headers.
 */
export function route(
  core: RoutedEndpoint,
  request: IncomingRequest,
  routed: boolean,
  given: Given,
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
  given: Given,
): Promise<Answer> {
  const origin = request.headers.get('origin');
  if (request.method === 'OPTIONS' && !isMetadata(core, request)) return cors.preflight(request);
  const answer = await serve(core, request, routed, given);
  return origin !== null && cors.allows(origin)
    ? withHeaders(answer, cors.headers(origin))
    : answer;
}

/**
 * The guards every request passes (shutdown, path, Host/Origin, capacity, authentication), then
 * GET and DELETE to the legacy session, or the POSTed message to its era. `routed`: a framework
 * already matched the path. `given`: the principal an integration vouched for, or its rejection
 * of the token (else the handler's own `auth` authenticates). A refusal made anywhere on the way (`Reply.refusal`) is
 * reported here, once.
 */
async function serve(
  core: RoutedEndpoint,
  request: IncomingRequest,
  routed: boolean,
  given: Given,
): Promise<Answer> {
  const early = guard(core, request, routed);
  if (early !== undefined) return settled(core, request, early, undefined);
  // An integration in front (a Worker, Hono middleware) rejected the token itself.
  if (given instanceof InvalidTokenError)
    return settled(
      core,
      request,
      refuseToken(core.resourceServer, `token-${given.rejection}`),
      undefined,
    );
  let auth = given;
  if (core.resourceServer) {
    const authenticated = await core.resourceServer.authenticate(request, given);
    if (authenticated instanceof Reply) return settled(core, request, authenticated, undefined);
    auth = authenticated;
  }
  const method = request.method;
  if (method === 'GET' || method === 'DELETE') {
    if (!core.legacyEnabled) return settled(core, request, notAllowed(core), undefined);
    let answer: Answer;
    try {
      answer = await (method === 'GET'
        ? handleGet(core, request, auth)
        : handleDelete(core, request, auth));
    } catch (error) {
      answer = unavailable(error, undefined);
    }
    return settled(core, request, answer, undefined);
  }
  // The body's bytes count against the handler's and this principal's budget from the first byte
  // read until the request, and every exchange it made, ended.
  const held = new RequestLoad(core.load, auth?.principal ?? request.remoteAddress ?? '');
  try {
    if (!held.enter()) return settled(core, request, busyPrincipal(core), undefined);
    const read = await readMessage(core, request, held);
    if (read instanceof Reply) return settled(core, request, read, undefined);
    const answer = toEra(core, request, read, auth, held);
    return settled(core, request, answer instanceof Promise ? await answer : answer, read);
  } finally {
    held.release();
  }
}

/** What is checked before anything is read or authenticated; `undefined` when all passed. */
function guard(core: RoutedEndpoint, request: IncomingRequest, routed: boolean): Reply | undefined {
  if (core.root.aborted) return refused(shuttingDown(), 'shutting-down');
  // The Protected Resource Metadata is public: any path the handler is mounted under, any origin.
  if (isMetadata(core, request)) return metadata(core, request);
  if (!routed && core.path !== undefined && pathOf(request.url) !== core.path)
    return refuse(
      'path',
      404,
      ErrorCode.InvalidRequest,
      `Not found: the MCP endpoint is ${core.path}`,
    );
  const host = checkHost(request, core.policy);
  if (host) return refuse(host.reason, 403, ErrorCode.InvalidRequest, host.message);
  if (core.inFlight >= core.limits.maxInFlight) {
    core.streams.counters.rejected++;
    return refused(
      overBudget(503, `The server is at capacity (${core.limits.maxInFlight} requests in flight)`),
      'capacity',
    );
  }
  return undefined;
}

/**
 * A POST's JSON-RPC message (or batch), after the method, Content-Type, Accept and size checks,
 * or the refusal.
 */
async function readMessage(
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
  if (!acceptsBoth(request.headers.get(HEADER.accept)))
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

/**
 * The message to its era (`classifyEra`'s rule): one carrying the modern `_meta` (or header) is
 * 2026-07-28; anything else is a legacy message, answered by its session.
 */
function toEra(
  core: RoutedEndpoint,
  request: IncomingRequest,
  message: JsonRpcMessage | unknown[],
  auth: AuthInfo | undefined,
  held: RequestLoad,
): Answer | Promise<Answer> {
  const headerSaysModern = modernHeader(request.headers);
  if (Array.isArray(message)) {
    if (core.legacyEnabled && !headerSaysModern)
      return handleBatch(core, request, message, auth, held).catch((error: unknown) =>
        unavailable(error, undefined),
      );
    return refuse(
      'invalid-message',
      400,
      ErrorCode.InvalidRequest,
      'Batches are not supported by core protocol revision',
    );
  }
  const params = message.kind === 'response' ? undefined : message.message.params;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  // classifyEra's rule, with the header already read and the message already classified.
  const modern = (meta !== undefined && META.protocolVersion in meta) || headerSaysModern;
  if (modern || !core.legacyEnabled) {
    if (message.kind === 'response')
      return refuse(
        'invalid-message',
        400,
        ErrorCode.InvalidRequest,
        'Clients must not send JSON-RPC responses',
      );
    // The modern era defines no client notifications over HTTP; accept and ignore them.
    if (message.kind === 'notification') return accepted();
    // Legacy-only input (a `_meta` without the version, e.g. a progress token, counts as legacy).
    if (!modern) return modernOnly(core, request, message.message.id, message.message);
    return handleModern(core, request, message.message, meta ?? {}, auth, held);
  }
  try {
    const answer = handleLegacy(core, request, message, auth, held);
    if (!(answer instanceof Promise)) return answer;
    const id = message.kind === 'request' ? message.message.id : undefined;
    return answer.catch((error: unknown) => unavailable(error, id));
  } catch (error) {
    return unavailable(error, message.kind === 'request' ? message.message.id : undefined);
  }
}

/** Reports the answer when it is a refusal (made here or deeper), and passes it on. */
function settled(
  core: RoutedEndpoint,
  request: IncomingRequest,
  answer: Answer,
  message: JsonRpcMessage | unknown[] | undefined,
): Answer {
  if (answer instanceof Reply && answer.refusal !== undefined)
    core.refused(request, answer, Array.isArray(message) ? undefined : message);
  return answer;
}

/** A usable Content-Length, or `undefined` (none, or one that says nothing). */
function declaredLength(request: IncomingRequest): number | undefined {
  const value = request.headers.get(HEADER.contentLength);
  if (value === null) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** A principal with `limits.maxInFlightPerPrincipal` requests running: 429. */
function busyPrincipal(core: RoutedEndpoint): Reply {
  core.streams.counters.rejected++;
  return refused(
    overBudget(
      429,
      `This client has ${core.limits.maxInFlightPerPrincipal} requests in flight already`,
    ),
    'principal-in-flight',
  );
}

/** A body the in-flight byte budget cannot take: 503 for the handler's, 429 for the principal's. */
function overBytes(core: RoutedEndpoint, held: RequestLoad): Reply {
  core.streams.counters.rejected++;
  return held.refused === 'principal'
    ? refused(
        overBudget(429, 'This client has too many request bytes in flight; retry later'),
        'principal-in-flight-bytes',
      )
    : refused(
        overBudget(503, 'The server has too many request bytes in flight; retry later'),
        'in-flight-bytes',
      );
}

function notAllowed(core: RoutedEndpoint): Reply {
  return refused(methodNotAllowed(core.allow), 'method-not-allowed');
}

/** Session storage that cannot be reached is a 503 with Retry-After; anything else is thrown on. */
function unavailable(error: unknown, id: RequestId | undefined): Reply {
  if (error instanceof StoreUnavailableError)
    return refused(storageUnavailable(error.retryAfterSeconds, id), 'storage-unavailable');
  throw error;
}

function isMetadata(core: RoutedEndpoint, request: IncomingRequest): boolean {
  return core.resourceServer?.metadataPaths.has(pathOf(request.url)) ?? false;
}

/** GET (or HEAD) of the metadata document; its preflight, from any origin. */
function metadata(core: RoutedEndpoint, request: IncomingRequest): Reply {
  const server = core.resourceServer as ResourceServer;
  if (request.method === 'OPTIONS') return METADATA_PREFLIGHT;
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return refused(methodNotAllowed('GET'), 'method-not-allowed');
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
  return refuse(
    'unsupported-version',
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
