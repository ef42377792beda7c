import type { AuthInfo } from '../auth/auth-info.ts';
import { InvalidTokenError } from '../errors.ts';
import { type CorsPolicy, withHeaders } from '../http/cors.ts';
import { checkHost } from '../http/guards.ts';
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
} from '../http/responses.ts';
import { pathOf } from '../http/url.ts';
import { handleBatch } from '../legacy/batch.ts';
import { handleLegacy } from '../legacy/dispatch.ts';
import { handleDelete, handleGet } from '../legacy/get-delete.ts';
import { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { handleModern } from '../modern/dispatch.ts';
import {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  HEADER,
  META,
  MODERN_VERSION,
} from '../protocol/constants.ts';
import { modernHeader } from '../protocol/era.ts';
import {
  isObject,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from '../protocol/jsonrpc.ts';
import { type ResourceServer, refuseToken } from '../server/resource-server.ts';
import {
  busyPrincipal,
  notAllowed,
  rateLimited,
  rateLimitedEarly,
  unavailable,
} from './admission.ts';
import { readMessage } from './read-message.ts';
import type { Given, RoutedEndpoint } from './routed-endpoint.ts';

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
  // The request counts among its principal's in flight (a GET until the stream it opens ends),
  // and its body's bytes against the budgets from the first byte read until it, and every
  // exchange it made, ended.
  const held = new RequestLoad(core.load, auth?.principal ?? request.remoteAddress ?? '');
  const method = request.method;
  if (method === 'GET' || method === 'DELETE') {
    if (!core.legacyEnabled) return settled(core, request, notAllowed(core), undefined);
    if (!held.enter()) return settled(core, request, busyPrincipal(core), undefined);
    let answer: Answer;
    try {
      answer = await (method === 'GET'
        ? handleGet(core, request, auth, held)
        : handleDelete(core, request, auth));
    } catch (error) {
      answer = unavailable(error, undefined);
    } finally {
      held.release();
    }
    return settled(core, request, answer, undefined);
  }
  try {
    if (!held.enter()) return settled(core, request, busyPrincipal(core), undefined);
    // A principal out of tokens is refused before its body is read (the flood costs no parse).
    const over = core.rateLimiter && rateLimitedEarly(core.rateLimiter, held.principal);
    if (over) return settled(core, request, over, undefined);
    const read = await readMessage(core, request, held);
    if (read instanceof Reply) return settled(core, request, read, undefined);
    if (core.rateLimiter && !Array.isArray(read) && read.kind === 'request') {
      const verdict = rateLimited(core.rateLimiter, read.message, held.principal);
      const limited = verdict instanceof Promise ? await verdict : verdict;
      if (limited) return settled(core, request, limited, read);
    }
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
