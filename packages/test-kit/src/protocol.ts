/** The protocol facts the builders share. */

/** The stateless revision: the version travels in `_meta` and the MCP-Protocol-Version header. */
export const MODERN = '2026-07-28';

/** The newest session revision, what `initialize` asks for unless told otherwise. */
export const LEGACY = '2025-11-25';

/**
 * Where the `*Request` builders address a request handed to a handler in-process. Loopback, so it
 * passes the handler's DNS-rebinding check.
 */
export const MCP_URL = 'http://127.0.0.1:8787/mcp';

/** The Accept header of a Streamable HTTP client. */
export const ACCEPT = 'application/json, text/event-stream';

export interface Implementation {
  name: string;
  version: string;
}

/** The client the builders introduce (modern `_meta` clientInfo, legacy initialize clientInfo). */
export const CLIENT_INFO: Implementation = { name: 'edge-mcp-test-kit', version: '1.0.0' };

export type Params = Record<string, unknown>;

/** A JSON-RPC request or notification as the builders make it. */
export interface RpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: Params;
}

/** What every builder accepts besides its own options. */
export interface RequestOptions {
  /** Merged over the built headers (last wins), to send a malformed or unusual request. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Where the `*Request` forms address the request. @default MCP_URL */
  url?: string;
}

let nextId = 1;

/** A request id unique within the test process. */
export function newId(): number {
  return nextId++;
}

/** The `Request` form of a `RequestInit` builder's result. */
export function toRequest(init: RequestInit, options: RequestOptions): Request {
  return new Request(options.url ?? MCP_URL, init);
}
