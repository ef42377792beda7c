/** Request shapes of both protocol eras, as the load generator and the probes send them. */
import { httpRequest, jsonRpcOf } from './http.ts';

export const MODERN = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';
const MODERN_META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{}}`;

export type Era = 'modern' | 'legacy';

export interface CallShape {
  headers: Record<string, string>;
  /** The body of request number `n` (ids stay unique, as a session requires). */
  body(n: number): string;
}

export function modernHeaders(tool: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
}

export function legacyHeaders(version: string, sessionId?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': version,
  };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  return headers;
}

/** `tools/call echo {text: 'hello'}` in either era. */
export function echoCall(era: Era, version: string, sessionId?: string): CallShape {
  const args = '"arguments":{"text":"hello"}';
  if (era === 'modern') {
    return {
      headers: modernHeaders('echo'),
      body: (n) =>
        `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo",${args},${MODERN_META}}}`,
    };
  }
  return {
    headers: legacyHeaders(version, sessionId),
    body: (n) =>
      `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"echo",${args}}}`,
  };
}

/** A modern `sleep` call with a progress token, so the answer streams at once. */
export function modernSleepBody(id: string, ms: number): string {
  return `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"sleep","arguments":{"ms":${ms}},"_meta":{"progressToken":"${id}","io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{}}}}`;
}

export function legacySleepBody(n: number, ms: number): string {
  return `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"sleep","arguments":{"ms":${ms}}}}`;
}

/** An `initialize` request (no session header, no protocol-version header, as clients send it). */
export function initializeShape(version: string): CallShape {
  return {
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: (n) =>
      `{"jsonrpc":"2.0","id":${n},"method":"initialize","params":{"protocolVersion":"${version}","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`,
  };
}

/** initialize + notifications/initialized; resolves with the session id (if the server gave one). */
export async function openSession(mcpUrl: string, version: string): Promise<string | undefined> {
  const init = initializeShape(version);
  const answer = await httpRequest(mcpUrl, {
    method: 'POST',
    headers: init.headers,
    body: init.body(0),
  });
  if (answer.status !== 200) throw new Error(`initialize: ${answer.status} ${answer.body}`);
  const header = answer.headers['mcp-session-id'];
  const sessionId = typeof header === 'string' ? header : undefined;
  const note = await httpRequest(mcpUrl, {
    method: 'POST',
    headers: legacyHeaders(version, sessionId),
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  if (note.status >= 300) throw new Error(`notifications/initialized: ${note.status} ${note.body}`);
  return sessionId;
}

/**
 * Sends one echo call and checks that `hello` comes back as the tool's text; resolves with how
 * the server answered (`json` or `sse`).
 */
export async function checkEcho(mcpUrl: string, shape: CallShape): Promise<'json' | 'sse'> {
  const answer = await httpRequest(mcpUrl, {
    method: 'POST',
    headers: shape.headers,
    body: shape.body(1),
  });
  const message = jsonRpcOf(answer) as
    | { result?: { content?: { text?: string }[] }; error?: unknown }
    | undefined;
  if (answer.status !== 200 || message?.result?.content?.[0]?.text !== 'hello') {
    throw new Error(`echo check failed: ${answer.status} ${answer.body.slice(0, 400)}`);
  }
  return String(answer.headers['content-type']).startsWith('text/event-stream') ? 'sse' : 'json';
}
