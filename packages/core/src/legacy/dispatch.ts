import type { AuthInfo } from '../auth/auth-info.ts';
import { McpError, methodNotFound } from '../errors.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, accepted, overBudget, Reply, refused } from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  LOG_LEVELS,
  type LogLevel,
} from '../protocol/constants.ts';
import {
  describeValue,
  isObject,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  resultMessage,
} from '../protocol/jsonrpc.ts';
import { type EraRules, PreparedCall } from '../server/execute.ts';
import { advertises } from '../server/lists.ts';
import { FEATURE_METHODS, type MethodSpec } from '../server/methods.ts';
import type { Session, SessionChange } from '../sessions/session.ts';
import { taskToolsCall } from '../tasks/tools-call.ts';
import { LegacyContext } from './context.ts';
import type { LegacyEndpoint } from './endpoint.ts';
import { LegacyExchange } from './exchange.ts';
import { initialize } from './initialize.ts';
import { claimedVersion, type SessionLookup, sessionOf } from './session-of.ts';
import { LEGACY_TASK_METHODS, LEGACY_TASKS, legacyToolsList } from './tasks.ts';

/** A legacy message's outcome: answered already, or a request ready for routing to run. */
export type LegacyOutcome = Answer | PreparedCall<LegacyContext>;

/**
 * Serves one legacy POST message (2025-03-26, 2025-06-18, 2025-11-25): `initialize`, then
 * requests, notifications and responses of a session (or, with sessions off, of nobody).
 */
export function handleLegacy(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  message: JsonRpcMessage,
  auth: AuthInfo | undefined,
  /** The request's body bytes, held by the exchange it makes until it ends. */
  held?: RequestLoad,
  /** The session, when the caller has already found it (a batch, once for all its elements). */
  known?: Session,
): LegacyOutcome | Promise<LegacyOutcome> {
  if (message.kind === 'request' && message.message.method === 'initialize')
    return initialize(endpoint, request, message.message, auth);
  const session = known ?? sessionOf(endpoint, request, auth);
  if (session instanceof Promise)
    return session.then((found) => serve(endpoint, request, message, found, auth, held));
  return serve(endpoint, request, message, session, auth, held);
}

function serve(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  message: JsonRpcMessage,
  session: SessionLookup,
  auth: AuthInfo | undefined,
  held: RequestLoad | undefined,
): LegacyOutcome | Promise<LegacyOutcome> {
  if (session instanceof Reply) return session;
  switch (message.kind) {
    case 'notification': {
      notification(endpoint, session, message.message.method, message.message.params ?? {});
      // A change being stored (a cluster manager) is durable before the 202.
      const writes = session?.writes;
      return writes ? writes.then(accepted) : accepted();
    }
    case 'response':
      respond(endpoint, session, message);
      return accepted();
    case 'request':
      return dispatch(endpoint, request, session, message.message, auth, held);
  }
}

const INITIALIZED: SessionChange = Object.freeze({ kind: 'initialized' });
const LOG_LEVEL: SessionChange = Object.freeze({ kind: 'logLevel' });

function notification(
  endpoint: LegacyEndpoint,
  session: Session | undefined,
  method: string,
  params: JsonObject,
): void {
  if (!session) return;
  if (method === 'notifications/initialized') {
    session.initialized = true;
    session.changed(INITIALIZED);
  } else if (method === 'notifications/cancelled') {
    const id = params.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const request = session.requests.get(id);
    // Not running here: where sessions span instances, it may run on another one.
    if (request) request.abort('client-cancel');
    else endpoint.sessions?.cluster?.cancel(session, id);
  }
}

/**
 * A client's answer to a server→client request, routed back to the waiting handler: here, or
 * (sessions spanning instances) on the instance the request's id names.
 */
function respond(
  endpoint: LegacyEndpoint,
  session: Session | undefined,
  message: Extract<JsonRpcMessage, { kind: 'response' }>,
): void {
  if (!session) return;
  const response = message.error
    ? { error: message.error }
    : { result: isObject(message.result) ? message.result : {} };
  if (!session.answer(message.id, response))
    endpoint.sessions?.cluster?.respond(session, message.id, response);
}

function dispatch(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  session: Session | undefined,
  rpc: JsonRpcRequest,
  auth: AuthInfo | undefined,
  held: RequestLoad | undefined,
): Answer | PreparedCall<LegacyContext> {
  const max = endpoint.limits.maxInFlightPerSession;
  if (session && session.requests.size >= max) {
    endpoint.streams.counters.rejected++;
    return refused(
      overBudget(429, `This session has ${max} requests in flight already`, rpc.id),
      'session-busy',
    );
  }
  const version = claimedVersion(session, request, DEFAULT_LEGACY_VERSION);
  const exchange = new LegacyExchange(
    session ?? endpoint.root,
    session,
    rpc.id,
    rpc.method,
    endpoint.legacy,
  );
  exchange.followRequest(request);
  exchange.hold(held);
  const params = rpc.params ?? {};
  const target = params.name ?? params.uri;
  if (typeof target === 'string') exchange.name = target;
  const meta = isObject(params._meta) ? params._meta : {};
  const ctx = new LegacyContext(endpoint, exchange, meta, version, auth);
  const spec = METHODS[rpc.method];
  const known = spec !== undefined && advertises(endpoint.registry, rpc.method);
  return new PreparedCall(LEGACY, ctx, known ? spec : NOT_FOUND, params, session?.id);
}

/** The wire shape of the legacy revisions around the shared methods: plain JSON-RPC. */
const LEGACY: EraRules<LegacyContext> = {
  resourceNotFound: ErrorCode.ResourceNotFound,
  errorStatus: false,
  finish: (ctx, result) => resultMessage(ctx.requestId, result),
};

/** Answers -32601 through the same path as every method (request log, error code). */
const NOT_FOUND: MethodSpec<LegacyContext> = {
  run: (ctx) => {
    throw methodNotFound(ctx.method);
  },
};

function subscription(ctx: LegacyContext, params: JsonObject, add: boolean): JsonObject {
  const limits = ctx.endpoint.limits;
  const uri = params.uri;
  if (typeof uri !== 'string')
    throw new McpError(ErrorCode.InvalidParams, 'params.uri is required');
  if (uri.length > limits.maxUriLength)
    throw new McpError(ErrorCode.InvalidParams, `params.uri is longer than ${limits.maxUriLength}`);
  const session = ctx.exchange.session;
  if (
    add &&
    session &&
    !session.isSubscribed(uri) &&
    session.subscriptions.size >= limits.maxSubscriptions
  )
    throw new McpError(
      ErrorCode.InvalidParams,
      `A session may hold ${limits.maxSubscriptions} subscriptions at most`,
    );
  if (!session) return {};
  if (add) session.subscriptions.add(uri);
  else session.subscriptions.delete(uri);
  session.changed({ kind: 'subscription', uri });
  return {};
}

const METHODS: Readonly<Record<string, MethodSpec<LegacyContext>>> = {
  ...FEATURE_METHODS,
  'tools/call': taskToolsCall(LEGACY_TASKS),
  'tools/list': legacyToolsList(FEATURE_METHODS['tools/list'] as MethodSpec<LegacyContext>),
  ...LEGACY_TASK_METHODS,
  ping: { run: () => ({}) },
  'logging/setLevel': {
    run: (ctx, params) => {
      if (!LOG_LEVELS.includes(params.level as LogLevel))
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown log level: ${describeValue(params.level)}`,
        );
      const session = ctx.exchange.session;
      if (session) {
        session.logLevel = params.level as LogLevel;
        session.changed(LOG_LEVEL);
      }
      return {};
    },
  },
  'resources/subscribe': { run: (ctx, params) => subscription(ctx, params, true) },
  'resources/unsubscribe': { run: (ctx, params) => subscription(ctx, params, false) },
};
