/** Request shapes of both protocol eras, as the load generator and the probes send them. */
import {
  initializeParams,
  legacyHeaders,
  legacyMessage,
  modernHeaders,
  modernMessage,
  type RpcMessage,
} from '@edge-mcp/test-kit';
import { type HttpAnswer, httpRequest, jsonRpcOf } from './http.ts';

export type Era = 'modern' | 'legacy';

export interface CallShape {
  headers: Record<string, string>;
  /** The body of request number `n` (ids stay unique, as a session requires). */
  body(n: number): string;
}

/**
 * Bodies that differ only in their id, from one serialisation: the load loop joins strings
 * instead of serialising a message per request. (`clientInfo: null` in modern messages keeps
 * the bodies as small as before; the client is unnamed in every run.)
 */
function numbered(message: RpcMessage): (n: number) => string {
  const rest = JSON.stringify({ ...message, id: undefined }).slice(1);
  return (n) => `{"id":${n},${rest}`;
}

/** The headers of a modern `tools/call` of `tool`. */
export function toolCallHeaders(tool: string): Record<string, string> {
  return modernHeaders('tools/call', { name: tool });
}

/** The headers of a legacy POST (the session once there is one). */
export function legacyPostHeaders(version: string, sessionId?: string): Record<string, string> {
  return { 'content-type': 'application/json', ...legacyHeaders(sessionId, { version }) };
}

/** `tools/call echo {text: 'hello'}` in either era. */
export function echoCall(era: Era, version: string, sessionId?: string): CallShape {
  const params = { name: 'echo', arguments: { text: 'hello' } };
  if (era === 'modern') {
    return {
      headers: toolCallHeaders('echo'),
      body: numbered(modernMessage('tools/call', params, { clientInfo: null })),
    };
  }
  return {
    headers: legacyPostHeaders(version, sessionId),
    body: numbered(legacyMessage('tools/call', params)),
  };
}

/** A modern `sleep` call with a progress token, so the answer streams at once. */
export function modernSleepBody(id: string, ms: number): string {
  const message = modernMessage(
    'tools/call',
    { name: 'sleep', arguments: { ms } },
    { id, clientInfo: null, meta: { progressToken: id } },
  );
  return JSON.stringify(message);
}

export function legacySleepBody(n: number, ms: number): string {
  return JSON.stringify(legacyMessage('tools/call', { name: 'sleep', arguments: { ms } }, n));
}

/**
 * An `initialize` request (no session header, no protocol-version header, as clients send it),
 * declaring `capabilities` (none by default).
 */
export function initializeShape(
  version: string,
  capabilities: Record<string, unknown> = {},
): CallShape {
  const params = initializeParams(version, capabilities, { name: 'bench', version: '1.0.0' });
  return {
    headers: { 'content-type': 'application/json', ...legacyHeaders() },
    body: numbered(legacyMessage('initialize', params)),
  };
}

/** initialize + notifications/initialized; resolves with the session id (throws without one). */
export async function openSession(
  mcpUrl: string,
  version: string,
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const init = initializeShape(version, capabilities);
  const answer = await httpRequest(mcpUrl, {
    method: 'POST',
    headers: init.headers,
    body: init.body(0),
  });
  if (answer.status !== 200) throw new Error(`initialize: ${answer.status} ${answer.body}`);
  const sessionId = answer.headers['mcp-session-id'];
  if (typeof sessionId !== 'string') throw new Error('initialize gave no Mcp-Session-Id');
  const note = await httpRequest(mcpUrl, {
    method: 'POST',
    headers: legacyPostHeaders(version, sessionId),
    body: JSON.stringify(legacyMessage('notifications/initialized', undefined, null)),
  });
  if (note.status >= 300) throw new Error(`notifications/initialized: ${note.status} ${note.body}`);
  return sessionId;
}

/** The text of the tool result an answer carries; undefined when it carries none or no JSON. */
export function echoText(answer: HttpAnswer): string | undefined {
  try {
    const message = jsonRpcOf(answer) as { result?: { content?: { text?: string }[] } } | undefined;
    return message?.result?.content?.[0]?.text;
  } catch {
    return undefined;
  }
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
  if (answer.status !== 200 || echoText(answer) !== 'hello') {
    throw new Error(`echo check failed: ${answer.status} ${answer.body.slice(0, 400)}`);
  }
  return String(answer.headers['content-type']).startsWith('text/event-stream') ? 'sse' : 'json';
}
