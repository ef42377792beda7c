import { McpError, methodNotFound } from '../errors.ts';
import type { HandlerCore } from '../http/handler.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  accepted,
  errorResponse,
  JSON_HEADERS,
  Reply,
  shuttingDown,
} from '../http/responses.ts';
import {
  ErrorCode,
  HEADER,
  LEGACY_VERSIONS,
  type LegacyVersion,
  LOG_LEVELS,
  type LogLevel,
} from '../protocol/constants.ts';
import {
  errorMessage,
  isObject,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  resultMessage,
} from '../protocol/jsonrpc.ts';
import {
  advertises,
  type ListName,
  listResult,
  readResource,
  rpcError,
} from '../server/features.ts';
import { FEATURE_METHODS } from '../server/methods.ts';
import { LegacyContext } from './context.ts';
import { LegacyExchange } from './exchange.ts';
import type { Session } from './session.ts';
import { SessionLimitError } from './session-manager.ts';

/** A method's result, or a promise of it when it has something to wait for. */
type Method = (
  core: HandlerCore,
  ctx: LegacyContext,
  params: JsonObject,
) => JsonObject | Promise<JsonObject>;

/** The session a legacy request names, or the Response that refuses it. */
export function sessionOf(
  core: HandlerCore,
  request: IncomingRequest,
): Session | Reply | undefined {
  const manager = core.sessions;
  if (!manager) return unsupportedVersion(request);
  const id = request.headers.get(HEADER.sessionId);
  if (id === null)
    return errorResponse(
      400,
      ErrorCode.InvalidRequest,
      'Bad Request: the Mcp-Session-Id header is required',
    );
  const session = manager.get(id);
  if (!session) return errorResponse(404, -32001, 'Session not found');
  return unsupportedVersion(request) ?? session;
}

/** A MCP-Protocol-Version header that names no legacy revision is a 400, sessions or not. */
function unsupportedVersion(request: IncomingRequest): Reply | undefined {
  const version = request.headers.get(HEADER.protocolVersion);
  if (version === null || (LEGACY_VERSIONS as readonly string[]).includes(version.trim()))
    return undefined;
  return errorResponse(
    400,
    ErrorCode.InvalidRequest,
    `Bad Request: unsupported MCP-Protocol-Version ${version}`,
  );
}

/**
 * Serves one legacy POST message (2025-03-26, 2025-06-18, 2025-11-25): `initialize`, then
 * requests, notifications and responses of a session (or, with sessions off, of nobody).
 */
export function handleLegacy(
  core: HandlerCore,
  request: IncomingRequest,
  message: JsonRpcMessage,
  /** The session, when the caller has already found it (a batch, once for all its elements). */
  known?: Session,
): Answer | Promise<Answer> {
  if (message.kind === 'request' && message.message.method === 'initialize')
    return initialize(core, request, message.message);
  const session = known ?? sessionOf(core, request);
  if (session instanceof Reply) return session;
  switch (message.kind) {
    case 'notification':
      notification(session, message.message.method, message.message.params ?? {});
      return accepted();
    case 'response':
      respond(session, message);
      return accepted();
    case 'request':
      return dispatch(core, request, session, message.message);
  }
}

function initialize(core: HandlerCore, request: IncomingRequest, rpc: JsonRpcRequest): Reply {
  const params = rpc.params ?? {};
  if (typeof params.protocolVersion !== 'string') {
    return errorResponse(
      400,
      ErrorCode.InvalidParams,
      'initialize needs params.protocolVersion',
      rpc.id,
    );
  }
  const requested = params.protocolVersion;
  // Echo a supported revision; otherwise offer the newest legacy one (2026-07-28 is not negotiated here).
  const protocolVersion = (
    (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0]
  ) as LegacyVersion;
  const init = {
    protocolVersion,
    clientInfo: isObject(params.clientInfo) ? (params.clientInfo as never) : undefined,
    clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
  };
  let sessionId: string | undefined;
  if (core.sessions) {
    // An initialize whose body was still arriving when the server shut down gets no session:
    // one opened now would outlive the shutdown in the manager.
    if (core.root.aborted) return shuttingDown(rpc.id);
    let session: Session;
    try {
      session = core.sessions.create(core.root, init);
    } catch (error) {
      if (!(error instanceof SessionLimitError)) throw error;
      return errorResponse(503, ErrorCode.InternalError, error.message, rpc.id, undefined, {
        'retry-after': String(error.retryAfterSeconds),
      });
    }
    core.sessionOpened(session, request);
    sessionId = session.id;
  }
  // Everything but the version is the same for every client: serialized once per capability set.
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{"protocolVersion":${JSON.stringify(protocolVersion)},${initializeTail(core)}}`;
  return new Reply(
    200,
    body,
    sessionId === undefined
      ? JSON_HEADERS
      : // A literal (not a spread of JSON_HEADERS) keeps this object's shape fixed and cheap.
        { 'content-type': 'application/json', 'mcp-session-id': sessionId },
  );
}

const tails = new WeakMap<object, string>();

/** `"capabilities":…,"serverInfo":…[,"instructions":…]}` for the server's current capabilities. */
function initializeTail(core: HandlerCore): string {
  const capabilities = core.server.capabilities();
  let tail = tails.get(capabilities);
  if (tail === undefined) {
    const rest: JsonObject = { capabilities, serverInfo: core.serverInfo };
    if (core.server.info.instructions) rest.instructions = core.server.info.instructions;
    tail = JSON.stringify(rest).slice(1);
    tails.set(capabilities, tail);
  }
  return tail;
}

function notification(session: Session | undefined, method: string, params: JsonObject): void {
  if (!session) return;
  if (method === 'notifications/initialized') {
    session.initialized = true;
    session.changed();
  } else if (method === 'notifications/cancelled') {
    const id = params.requestId;
    if (typeof id === 'string' || typeof id === 'number')
      session.requests.get(id)?.abort('client-cancel');
  }
}

/** A client's answer to a server→client request, routed back to the waiting handler. */
function respond(
  session: Session | undefined,
  message: Extract<JsonRpcMessage, { kind: 'response' }>,
): void {
  const pending = session?.pending.get(message.id);
  if (!pending || !session) return;
  session.pending.delete(message.id);
  if (message.error)
    pending.reject(
      new McpError(message.error.code, message.error.message, { data: message.error.data }),
    );
  else pending.resolve(isObject(message.result) ? message.result : {});
}

function dispatch(
  core: HandlerCore,
  request: IncomingRequest,
  session: Session | undefined,
  rpc: JsonRpcRequest,
): Promise<Answer> {
  const version =
    session?.protocolVersion ??
    (request.headers.get(HEADER.protocolVersion)?.trim() || '2025-03-26');
  const exchange = new LegacyExchange(
    session ?? core.root,
    session,
    rpc.id,
    rpc.method,
    core.legacy,
  );
  exchange.watch(request);
  const params = rpc.params ?? {};
  const target = params.name ?? params.uri;
  if (typeof target === 'string') exchange.name = target;
  const meta = isObject(params._meta) ? params._meta : {};
  const ctx = new LegacyContext(exchange, meta, version);
  void core.run(exchange, execute(core, ctx, params), version, session?.id);
  return exchange.response;
}

async function execute(core: HandlerCore, ctx: LegacyContext, params: JsonObject): Promise<void> {
  const exchange = ctx.exchange;
  // Already over (the client left, or the session or server ended, while the body was read).
  if (exchange.aborted) return;
  try {
    const method = METHODS[exchange.method];
    if (!method || !advertises(core.server, exchange.method)) throw methodNotFound(exchange.method);
    exchange.reply(resultMessage(exchange.id, await method(core, ctx, params)));
  } catch (error) {
    if (exchange.aborted) return;
    const body = rpcError(error);
    exchange.errorCode = body.code;
    exchange.reply(errorMessage(exchange.id, body));
  }
}

function page(core: HandlerCore, kind: ListName, field: string, params: JsonObject): JsonObject {
  return listResult(core.server, kind, field, params.cursor, core.pageSize);
}

function subscription(ctx: LegacyContext, params: JsonObject, add: boolean): JsonObject {
  if (typeof params.uri !== 'string')
    throw new McpError(ErrorCode.InvalidParams, 'params.uri is required');
  const session = ctx.exchange.session;
  if (add) session?.subscriptions.add(params.uri);
  else session?.subscriptions.delete(params.uri);
  session?.changed();
  return {};
}

const METHODS: Record<string, Method> = {
  ...FEATURE_METHODS,
  ping: () => ({}),
  'logging/setLevel': (_core, ctx, params) => {
    if (!LOG_LEVELS.includes(params.level as LogLevel))
      throw new McpError(ErrorCode.InvalidParams, `Unknown log level: ${String(params.level)}`);
    const session = ctx.exchange.session;
    if (session) {
      session.logLevel = params.level as LogLevel;
      session.changed();
    }
    return {};
  },
  'tools/list': (core, _ctx, params) => page(core, 'tools', 'tools', params),
  'resources/list': (core, _ctx, params) => page(core, 'resources', 'resources', params),
  'resources/templates/list': (core, _ctx, params) =>
    page(core, 'templates', 'resourceTemplates', params),
  'prompts/list': (core, _ctx, params) => page(core, 'prompts', 'prompts', params),
  'resources/read': (core, ctx, params) =>
    readResource(core.server, params.uri, ctx, ErrorCode.ResourceNotFound),
  'resources/subscribe': (_core, ctx, params) => subscription(ctx, params, true),
  'resources/unsubscribe': (_core, ctx, params) => subscription(ctx, params, false),
};
