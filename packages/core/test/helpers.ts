import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpServer,
} from '../src/index.ts';

export const URL_ = 'http://127.0.0.1:8787/mcp';
export const VERSION = '2026-07-28';

export interface CallOptions {
  id?: string | number;
  headers?: Record<string, string>;
  meta?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Replace the whole body (for malformed input tests). */
  body?: string;
  capabilities?: Record<string, unknown>;
}

let nextId = 1;

/** A well-formed 2026-07-28 POST: headers and `_meta` as a conforming client sends them. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: CallOptions = {},
): Request {
  const id = options.id ?? nextId++;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
    ...options.meta,
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  };
  const name =
    method === 'resources/read'
      ? params.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  const body =
    options.body ??
    JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  return new Request(URL_, {
    method: 'POST',
    headers: { ...headers, ...options.headers },
    body,
    signal: options.signal,
  });
}

export interface RpcAnswer {
  status: number;
  contentType: string | null;
  /** The final JSON-RPC message. */
  message: Record<string, any>;
  /** Notifications that preceded it on an SSE answer. */
  notifications: Record<string, any>[];
}

/** Reads a JSON or SSE answer completely. */
export async function read(response: Response): Promise<RpcAnswer> {
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  if (contentType?.startsWith('text/event-stream')) {
    const messages = parseSse(text);
    const last = messages.at(-1) ?? {};
    return {
      status: response.status,
      contentType,
      message: last,
      notifications: messages.slice(0, -1),
    };
  }
  return {
    status: response.status,
    contentType,
    message: text ? JSON.parse(text) : {},
    notifications: [],
  };
}

export function parseSse(text: string): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n');
    if (data.trim()) out.push(JSON.parse(data));
  }
  return out;
}

export async function call(
  handler: McpHandler,
  method: string,
  params?: Record<string, unknown>,
  options?: CallOptions,
) {
  return read(await handler.fetch(modern(method, params, options)));
}

export function handlerFor(server: McpServer, options?: McpHandlerOptions): McpHandler {
  return createMcpHandler(server, options);
}

/** Resolves when `signal` aborts; rejects after `ms` so a missing abort fails the test instead of hanging it. */
export function aborted(signal: AbortSignal, ms = 5000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(signal.reason);
    const timer = setTimeout(() => reject(new Error(`signal did not abort within ${ms} ms`)), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(signal.reason);
      },
      { once: true },
    );
  });
}
