import type { AuthInfo } from '../auth/auth-info.ts';
import { SessionLimitError, StoreUnavailableError } from '../errors.ts';
import { clientAddressOf } from '../http/forwarded.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  JSON_HEADERS,
  refused as markRefused,
  Reply,
  refuse,
  shuttingDown,
  storageUnavailable,
} from '../http/responses.ts';
import {
  ErrorCode,
  LEGACY_VERSIONS,
  type LegacyVersion,
  REVISION_RULES,
} from '../protocol/constants.ts';
import { isObject, type JsonObject, type JsonRpcRequest } from '../protocol/jsonrpc.ts';
import type { Implementation } from '../server/types.ts';
import type { Session, SessionInit } from '../sessions/session.ts';
import type { LegacyEndpoint } from './endpoint.ts';
import { TASKS_CAPABILITY } from './tasks.ts';

/**
 * `initialize`: negotiates the revision (the client's when served, else the newest legacy one;
 * 2026-07-28 is not negotiated here) and opens a session when the handler has sessions.
 */
export function initialize(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  rpc: JsonRpcRequest,
  auth: AuthInfo | undefined,
): Reply | Promise<Reply> {
  const params = rpc.params ?? {};
  if (typeof params.protocolVersion !== 'string') {
    return refuse(
      'invalid-initialize',
      400,
      ErrorCode.InvalidParams,
      'initialize needs params.protocolVersion',
      rpc.id,
    );
  }
  const requested = params.protocolVersion;
  const protocolVersion = (
    (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0]
  ) as LegacyVersion;
  const tooLarge = oversized(endpoint, params);
  if (tooLarge) {
    endpoint.streams.counters.rejected++;
    return refuse('invalid-initialize', 400, ErrorCode.InvalidParams, tooLarge, rpc.id);
  }
  const manager = endpoint.sessions;
  if (!manager) return answer(endpoint, rpc, protocolVersion, undefined);
  // An initialize whose body was still arriving when the server shut down gets no session:
  // one opened now would outlive the shutdown in the manager.
  if (endpoint.root.aborted) return markRefused(shuttingDown(rpc.id), 'shutting-down');
  const init: SessionInit = {
    protocolVersion,
    clientInfo: isObject(params.clientInfo) ? (params.clientInfo as Implementation) : undefined,
    clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
    owner: auth?.principal,
    client: clientAddressOf(request, endpoint.trust),
  };
  let created: Session | Promise<Session>;
  try {
    created = manager.create(init);
  } catch (error) {
    return refused(error, rpc);
  }
  if (created instanceof Promise)
    return created.then(
      (session) => opened(endpoint, request, rpc, session),
      (error: unknown) => refused(error, rpc),
    );
  return opened(endpoint, request, rpc, created);
}

/** What a session keeps of the client is bounded: a reason to refuse, or undefined. */
function oversized(endpoint: LegacyEndpoint, params: JsonObject): string | undefined {
  const limits = endpoint.limits;
  if (jsonBytes(params.clientInfo) > limits.maxClientInfoBytes)
    return `clientInfo is larger than ${limits.maxClientInfoBytes} characters of JSON`;
  if (jsonBytes(params.capabilities) > limits.maxCapabilitiesBytes)
    return `capabilities is larger than ${limits.maxCapabilitiesBytes} characters of JSON`;
  return undefined;
}

/** Characters of the JSON text (what the limits count: one per UTF-16 unit). */
function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  try {
    return JSON.stringify(value).length;
  } catch {
    // Nested too deep to serialize (a stack overflow): certainly too large to keep.
    return Number.POSITIVE_INFINITY;
  }
}

function opened(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  rpc: JsonRpcRequest,
  session: Session,
): Reply {
  endpoint.sessionOpened(session, request);
  return answer(endpoint, rpc, session.protocolVersion, session.id);
}

/**
 * A full manager, or one whose storage cannot be reached, is a 503 whose Retry-After says when to
 * try again; anything else is thrown on.
 */
function refused(error: unknown, rpc: JsonRpcRequest): Reply {
  if (error instanceof StoreUnavailableError)
    return markRefused(storageUnavailable(error.retryAfterSeconds, rpc.id), 'storage-unavailable');
  if (!(error instanceof SessionLimitError)) throw error;
  const headers = { 'retry-after': String(error.retryAfterSeconds) };
  // The asking principal's own quota is a 429; the whole manager's, a 503.
  if (error.scope === 'principal')
    return refuse(
      'session-quota',
      429,
      ErrorCode.ServerError,
      error.message,
      rpc.id,
      undefined,
      headers,
    );
  return refuse(
    'session-limit',
    503,
    ErrorCode.InternalError,
    error.message,
    rpc.id,
    undefined,
    headers,
  );
}

function answer(
  endpoint: LegacyEndpoint,
  rpc: JsonRpcRequest,
  protocolVersion: string,
  sessionId: string | undefined,
): Reply {
  // Everything but the version is the same for every client: serialized once per capability set.
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":{"protocolVersion":${JSON.stringify(protocolVersion)},${initializeTail(endpoint, protocolVersion)}}`;
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
const tailsWithTasks = new WeakMap<object, string>();

/**
 * `"capabilities":…,"serverInfo":…[,"instructions":…]}` for the server's current capabilities
 * (with `tasks` for a 2025-11-25 session when tools may run as tasks).
 */
function initializeTail(endpoint: LegacyEndpoint, protocolVersion: string): string {
  const capabilities = endpoint.registry.capabilities();
  const withTasks =
    REVISION_RULES.tasks(protocolVersion) &&
    endpoint.tasks !== undefined &&
    endpoint.registry.tasks;
  const cache = withTasks ? tailsWithTasks : tails;
  let tail = cache.get(capabilities);
  if (tail === undefined) {
    const rest: JsonObject = {
      capabilities: withTasks ? { ...capabilities, tasks: TASKS_CAPABILITY } : capabilities,
      serverInfo: endpoint.serverInfo,
    };
    if (endpoint.instructions) rest.instructions = endpoint.instructions;
    tail = JSON.stringify(rest).slice(1);
    cache.set(capabilities, tail);
  }
  return tail;
}
