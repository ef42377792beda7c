import type { AuthInfo } from '../auth/auth-info.ts';
import { InvalidTokenError } from '../errors.ts';
import { type CorsPolicy, withHeaders } from '../http/cors.ts';
import { addressedAuthority, type Forwarding } from '../http/forwarded.ts';
import { checkHost } from '../http/guards.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  methodNotAllowed,
  overBudget,
  Reply,
  refuse,
  refused,
  shuttingDown,
} from '../http/responses.ts';
import { pathOf } from '../http/url.ts';
import { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonRpcMessage } from '../protocol/jsonrpc.ts';
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
import { toEra } from './to-era.ts';

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
  // What trusted proxies report: the host the guard checks, the client the budgets count.
  const forwarding = core.trust?.read(request);
  const early = guard(core, request, routed, forwarding);
  if (early !== undefined) return settled(core, request, early, undefined);
  let auth = principalOf(core, request, forwarding, given);
  if (auth instanceof Promise) auth = await auth;
  if (auth instanceof Reply) return settled(core, request, auth, undefined);
  // The request counts among its principal's in flight (a GET until the stream it opens ends),
  // and its body's bytes against the budgets from the first byte read until it, and every
  // exchange it made, ended.
  const client = forwarding ? forwarding.clientAddress : request.remoteAddress;
  const held = new RequestLoad(core.load, auth?.principal ?? client ?? '');
  const method = request.method;
  if (method === 'GET' || method === 'DELETE') return serveSession(core, request, auth, held);
  try {
    if (!held.enter()) return settled(core, request, busyPrincipal(core), undefined);
    // A principal out of tokens is refused before its body is read (the flood costs no parse).
    const over = core.rateLimiter && rateLimitedEarly(core.rateLimiter, held.principal);
    if (over) return settled(core, request, over, undefined);
    const read = await readMessage(core, request, held);
    if (read instanceof Reply) return settled(core, request, read, undefined);
    // Draining: new requests go elsewhere; answers and cancellations for work still running here
    // get through.
    if (core.draining && carriesRequest(read))
      return settled(core, request, drainingNow(read), read);
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

/**
 * Who the request is from: the principal an integration vouched for, or with the handler's own
 * `auth` the one its bearer token stands for; a refusal (401, or 403 for a host the resource
 * identifier may not be built on). Without `auth`, synchronous: no promise on the hot path.
 */
function principalOf(
  core: RoutedEndpoint,
  request: IncomingRequest,
  forwarding: Forwarding | undefined,
  given: Given,
): AuthInfo | undefined | Reply | Promise<AuthInfo | Reply> {
  const server = core.resourceServer;
  // What this resource server is to the request (its identifier is the URL it addressed, when
  // `auth.resource` is a path: built only on a listed host).
  const facts = server?.factsAt(request, forwarding);
  if (server && facts === undefined) return notAResourceHost(request, forwarding);
  // An integration in front (a Worker, Hono middleware) rejected the token itself.
  if (given instanceof InvalidTokenError)
    return refuseToken(server, `token-${given.rejection}`, facts);
  return server && facts ? server.authenticate(request, given, facts) : given;
}

/** GET (the session's stream, or a resumption) and DELETE, held as one request in flight. */
async function serveSession(
  core: RoutedEndpoint,
  request: IncomingRequest,
  auth: AuthInfo | undefined,
  held: RequestLoad,
): Promise<Answer> {
  if (!core.legacyEnabled) return settled(core, request, notAllowed(core), undefined);
  // Draining: a new stream goes to another instance; a DELETE still ends its session.
  const get = request.method === 'GET';
  if (get && core.draining) return settled(core, request, drainingNow(), undefined);
  if (!held.enter()) return settled(core, request, busyPrincipal(core), undefined);
  let answer: Answer;
  try {
    const era = await core.legacyEra();
    answer = await (get
      ? era.handleGet(core, request, auth, held)
      : era.handleDelete(core, request, auth));
  } catch (error) {
    answer = unavailable(error, undefined);
  } finally {
    held.release();
  }
  return settled(core, request, answer, undefined);
}

/** What is checked before anything is read or authenticated; `undefined` when all passed. */
function guard(
  core: RoutedEndpoint,
  request: IncomingRequest,
  routed: boolean,
  forwarding: Forwarding | undefined,
): Reply | undefined {
  if (core.root.aborted) return refused(shuttingDown(), 'shutting-down');
  // The Protected Resource Metadata is public: any path the handler is mounted under, any origin.
  if (isMetadata(core, request)) return metadata(core, request, forwarding);
  if (!routed && core.path !== undefined && pathOf(request.url) !== core.path)
    return refuse(
      'path',
      404,
      ErrorCode.InvalidRequest,
      `Not found: the MCP endpoint is ${core.path}`,
    );
  const host = checkHost(request, core.policy, forwarding);
  if (host) return refuse(host.reason, 403, ErrorCode.InvalidRequest, host.message);
  if (core.requests.inFlight >= core.limits.maxInFlight) {
    core.streams.counters.rejected++;
    return refused(
      overBudget(503, `The server is at capacity (${core.limits.maxInFlight} requests in flight)`),
      'capacity',
    );
  }
  return undefined;
}

/** The 503 (Retry-After) of new work once the handler closes: a balancer retries it elsewhere. */
function drainingNow(read?: JsonRpcMessage | unknown[]): Reply {
  const id =
    read !== undefined && !Array.isArray(read) && read.kind === 'request'
      ? read.message.id
      : undefined;
  return refused(shuttingDown(id), 'shutting-down');
}

function carriesRequest(read: JsonRpcMessage | unknown[]): boolean {
  if (!Array.isArray(read)) return read.kind === 'request';
  return read.some(
    (item) => typeof item === 'object' && item !== null && 'method' in item && 'id' in item,
  );
}

/** Reports the answer when it is a refusal (made here or deeper), and passes it on. */
function settled(
  core: RoutedEndpoint,
  request: IncomingRequest,
  answer: Answer,
  message: JsonRpcMessage | unknown[] | undefined,
): Answer {
  if (answer instanceof Reply && answer.refusal !== undefined)
    core.requests.refused(request, answer, Array.isArray(message) ? undefined : message);
  return answer;
}

function isMetadata(core: RoutedEndpoint, request: IncomingRequest): boolean {
  return core.resourceServer?.metadataPaths.has(pathOf(request.url)) ?? false;
}

/** GET (or HEAD) of the metadata document; its preflight, from any origin. */
function metadata(
  core: RoutedEndpoint,
  request: IncomingRequest,
  forwarding: Forwarding | undefined,
): Reply {
  const server = core.resourceServer as ResourceServer;
  if (request.method === 'OPTIONS') return METADATA_PREFLIGHT;
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return refused(methodNotAllowed('GET'), 'method-not-allowed');
  const facts = server.factsAt(request, forwarding);
  return facts ? server.metadata(facts) : notAResourceHost(request, forwarding);
}

/** The 403 of a host `auth.resource` (a path) may not be built on: not one `allowedHosts` lists. */
function notAResourceHost(request: IncomingRequest, forwarding: Forwarding | undefined): Reply {
  return refuse(
    'host-not-allowed',
    403,
    ErrorCode.InvalidRequest,
    `Host not allowed: ${addressedAuthority(request, forwarding)} is not a name of this resource (allowedHosts)`,
  );
}

const METADATA_PREFLIGHT = new Reply(204, null, {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'mcp-protocol-version',
  'access-control-max-age': '3600',
});
