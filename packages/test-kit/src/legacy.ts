/**
 * Requests of the session revisions (2025-03-26, 2025-06-18, 2025-11-25) as the official SDK
 * client sends them: no `_meta` version, the session in Mcp-Session-Id.
 */
import {
  ACCEPT,
  CLIENT_INFO,
  type Implementation,
  LEGACY,
  newId,
  type Params,
  type RequestOptions,
  type RpcMessage,
  toRequest,
} from './protocol.ts';

export interface LegacyOptions extends RequestOptions {
  /** The MCP-Protocol-Version header; left out when not given (before initialize, 2025-03-26). */
  version?: string;
}

export interface LegacyCallOptions extends LegacyOptions {
  /** `null` leaves the id out (a notification). @default a fresh id */
  id?: string | number | null;
}

/** Headers of a legacy request: Accept (`null`: none), and the session and version when given. */
export function legacyHeaders(
  session?: string,
  options: LegacyOptions = {},
  accept: string | null = ACCEPT,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (accept !== null) headers.accept = accept;
  if (session !== undefined) headers['mcp-session-id'] = session;
  if (options.version !== undefined) headers['mcp-protocol-version'] = options.version;
  return { ...headers, ...options.headers };
}

/** The JSON-RPC message; `id: null` makes it a notification, `params` undefined leaves them out. */
export function legacyMessage(
  method: string,
  params?: Params,
  id: string | number | null = newId(),
): RpcMessage {
  const message: RpcMessage = { jsonrpc: '2.0', method };
  if (id !== null) message.id = id;
  if (params !== undefined) message.params = params;
  return message;
}

/** POSTs any JSON-RPC message or batch (a client response, a 2025-03-26 batch) on a session. */
export function post(message: unknown, session?: string, options: LegacyOptions = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...legacyHeaders(session, options) },
    body: JSON.stringify(message),
    signal: options.signal,
  };
}

/** A legacy request (or, with `id: null`, a notification), for `fetch(url, legacy(…))`. */
export function legacy(
  method: string,
  params?: Params,
  session?: string,
  options: LegacyCallOptions = {},
): RequestInit {
  return post(legacyMessage(method, params, options.id), session, options);
}

/** A legacy notification (no id). */
export function notification(
  method: string,
  params?: Params,
  session?: string,
  options: LegacyOptions = {},
): RequestInit {
  return legacy(method, params, session, { ...options, id: null });
}

/** The params of `initialize`. */
export function initializeParams(
  version = LEGACY,
  capabilities: Record<string, unknown> = {},
  clientInfo: Implementation = CLIENT_INFO,
): Params {
  return { protocolVersion: version, capabilities, clientInfo };
}

/** The standalone GET stream of a session, resumed after `lastEventId` when given. */
export function legacyGet(
  session?: string,
  lastEventId?: string,
  options: LegacyOptions = {},
): RequestInit {
  const headers = legacyHeaders(session, options, 'text/event-stream');
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  return { method: 'GET', headers, signal: options.signal };
}

/** DELETE: the client ends its session. */
export function legacyDelete(session: string, options: LegacyOptions = {}): RequestInit {
  const headers = legacyHeaders(session, options, null);
  return { method: 'DELETE', headers, signal: options.signal };
}

// The `Request` forms (to `options.url`, by default MCP_URL), for `handler.fetch(…)`.

export function postRequest(message: unknown, session?: string, options: LegacyOptions = {}) {
  return toRequest(post(message, session, options), options);
}

export function legacyRequest(
  method: string,
  params?: Params,
  session?: string,
  options: LegacyCallOptions = {},
): Request {
  return toRequest(legacy(method, params, session, options), options);
}

export function notificationRequest(
  method: string,
  params?: Params,
  session?: string,
  options: LegacyOptions = {},
): Request {
  return toRequest(notification(method, params, session, options), options);
}

export function legacyGetRequest(
  session?: string,
  lastEventId?: string,
  options: LegacyOptions = {},
): Request {
  return toRequest(legacyGet(session, lastEventId, options), options);
}

export function legacyDeleteRequest(session: string, options: LegacyOptions = {}): Request {
  return toRequest(legacyDelete(session, options), options);
}
