/** Well-formed 2026-07-28 requests: headers and `_meta` as a conforming client sends them. */
import {
  ACCEPT,
  CLIENT_INFO,
  type Implementation,
  MODERN,
  newId,
  type Params,
  type RequestOptions,
  type RpcMessage,
  toRequest,
} from './protocol.ts';

export interface ModernOptions extends RequestOptions {
  id?: string | number;
  /** Merged over the `_meta` the builder makes (it may replace the protocol fields). */
  meta?: Record<string, unknown>;
  /** `io.modelcontextprotocol/clientCapabilities`. @default {} */
  capabilities?: Record<string, unknown>;
  /** `io.modelcontextprotocol/clientInfo`; `null` leaves it out. @default CLIENT_INFO */
  clientInfo?: Implementation | null;
  /** Replaces the whole body (malformed-input tests); headers stay as built. */
  body?: string;
}

/** The params field each method names in the Mcp-Name header. */
const NAMED_BY: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Content-Type, Accept, MCP-Protocol-Version, Mcp-Method and (when the method names one) Mcp-Name. */
export function modernHeaders(method: string, params: Params = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  const field = NAMED_BY[method];
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}

/** The JSON-RPC request, with the protocol version, capabilities and client info in `params._meta`. */
export function modernMessage(
  method: string,
  params: Params = {},
  options: ModernOptions = {},
): RpcMessage {
  const _meta: Record<string, unknown> = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
  };
  const clientInfo = options.clientInfo === undefined ? CLIENT_INFO : options.clientInfo;
  if (clientInfo !== null) _meta['io.modelcontextprotocol/clientInfo'] = clientInfo;
  return {
    jsonrpc: '2.0',
    id: options.id ?? newId(),
    method,
    params: { ...params, _meta: { ..._meta, ...options.meta } },
  };
}

/** A 2026-07-28 POST, for `fetch(url, modern(…))`. */
export function modern(
  method: string,
  params: Params = {},
  options: ModernOptions = {},
): RequestInit {
  return {
    method: 'POST',
    headers: { ...modernHeaders(method, params), ...options.headers },
    body: options.body ?? JSON.stringify(modernMessage(method, params, options)),
    signal: options.signal,
  };
}

/** The same POST as a `Request` (to `options.url`, by default MCP_URL), for `handler.fetch(…)`. */
export function modernRequest(
  method: string,
  params: Params = {},
  options: ModernOptions = {},
): Request {
  return toRequest(modern(method, params, options), options);
}
