/**
 * What one fuzzed HTTP exchange is, as plain data fast-check can generate, shrink and print, and
 * how it becomes a `Request`. Headers start from what a conforming client of the chosen era would
 * send for the body (so deep paths are reached) and are then edited by the generated operations.
 */
import { ACCEPT, MCP_URL, MODERN } from '@edge-mcp/test-kit';

export type Era = 'modern' | 'legacy';

/** Which Mcp-Session-Id the request carries. */
export type SessionRef =
  | { kind: 'none' }
  /** A real session of the fuzzer's pool (index modulo the pool's size). */
  | { kind: 'pool'; index: number }
  | { kind: 'literal'; value: string };

export type Body =
  /** Serialized with JSON.stringify; `@@huge:N@@` and `@@deep:N:a|o@@` strings are expanded. */
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array<ArrayBuffer> }
  | { kind: 'none' };

export type HeaderOp =
  | { op: 'drop'; name: string }
  | { op: 'set'; name: string; value: string }
  | { op: 'append'; name: string; value: string };

/** When the client gives up on the exchange (aborts the request's signal). */
export type AbortPlan =
  | { kind: 'never' }
  | { kind: 'before' }
  | { kind: 'after-ms'; ms: number }
  | { kind: 'after-headers' }
  | { kind: 'after-events'; count: number };

/**
 * How the client reads an SSE answer: to its end (an open-ended stream is cancelled once it has
 * been quiet for `idleMs`), or cancelled after a few events, or at once.
 */
export type ReadPlan =
  | { kind: 'full'; idleMs: number }
  | { kind: 'cancel-after'; events: number }
  | { kind: 'cancel-at-once' };

/**
 * What the client does with a question of the server: a legacy `elicitation/create` on the
 * stream is answered by POSTing a response (or a cancel); a 2026-07-28 input-required result is
 * retried with `inputResponses` (`tamper` changes its `requestState`).
 */
export type AnswerPlan = 'accept' | 'decline' | 'error' | 'garbage' | 'cancel' | 'tamper' | 'none';

export interface FuzzRequest {
  era: Era;
  httpMethod: string;
  /** Path and authority of the URL (the Host check reads the authority). */
  path: string;
  host: string;
  body: Body;
  /** Applied after the era's base headers, in order. */
  headers: HeaderOp[];
  session: SessionRef;
  /** Legacy MCP-Protocol-Version: `pool` takes the pool session's, `null` sends none. */
  version: string | null | 'pool';
  lastEventId: string | undefined;
  /** Milliseconds after the scenario starts that the request is sent. */
  delayMs: number;
  abort: AbortPlan;
  read: ReadPlan;
  answer: AnswerPlan;
}

export type ServerAction =
  | { kind: 'list-changed'; list: 'tools' | 'resources' | 'prompts'; delayMs: number }
  | { kind: 'resource-updated'; uri: string; delayMs: number }
  | { kind: 'register'; delayMs: number };

/** One property run: requests sent concurrently, and server-side events while they run. */
export interface Scenario {
  requests: FuzzRequest[];
  actions: ServerAction[];
}

/** A session of the pool, as a request needs it. */
export interface PoolSession {
  id: string;
  version: string;
}

const HUGE = /"@@huge:(\d+)@@"/g;
const DEEP = /"@@deep:(\d+):([ao])@@"/g;
/** What huge strings repeat: multi-byte characters and the line separators SSE must escape. */
const HUGE_UNIT = 'aé\u2028💥\u2029"\\';

/** The body as sent: JSON with its placeholders expanded. */
export function bodyText(body: Body): string | Uint8Array<ArrayBuffer> | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'bytes':
      return body.bytes;
    case 'text':
      return body.text;
    case 'json':
      return expand(JSON.stringify(body.value) ?? 'null');
  }
}

export function expand(json: string): string {
  return json
    .replace(HUGE, (_, n: string) =>
      JSON.stringify(HUGE_UNIT.repeat(Math.ceil(Number(n) / HUGE_UNIT.length))),
    )
    .replace(DEEP, (_, n: string, kind: string) => {
      const depth = Number(n);
      return kind === 'a'
        ? `${'['.repeat(depth)}${']'.repeat(depth)}`
        : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    });
}

/** The JSON-RPC id of a single-message body, when it is one a server can read back. */
export function requestIdOf(body: Body): string | number | undefined {
  if (body.kind !== 'json') return undefined;
  const value = body.value as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = value.id;
  if (typeof id === 'string' && !id.includes('@@')) return id;
  if (typeof id === 'number' && Number.isInteger(id)) return id;
  return undefined;
}

const NAMED_BY: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** Printable ASCII and tab: what a header value may carry as is. */
const SAFE_HEADER = /^[\x20-\x7e\t]*$/;

/** A header value as a conforming client writes it: as is, or in the Base64 sentinel form. */
export function headerText(value: string): string {
  if (SAFE_HEADER.test(value) && value.trim() === value) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** What a conforming client of `era` sends with this body. */
function baseHeaders(
  request: FuzzRequest,
  session: PoolSession | undefined,
): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const sessionId =
    request.session.kind === 'pool'
      ? session?.id
      : request.session.kind === 'literal'
        ? request.session.value
        : undefined;
  if (request.httpMethod === 'GET') {
    headers.push(['accept', 'text/event-stream']);
  } else if (request.httpMethod !== 'DELETE') {
    headers.push(['content-type', 'application/json'], ['accept', ACCEPT]);
  }
  if (sessionId !== undefined) headers.push(['mcp-session-id', sessionId]);
  if (request.lastEventId !== undefined) headers.push(['last-event-id', request.lastEventId]);
  if (request.era === 'legacy') {
    const version = request.version === 'pool' ? session?.version : request.version;
    if (version) headers.push(['mcp-protocol-version', version]);
    return headers;
  }
  // 2026-07-28: the version, method, name and Mcp-Param-* headers mirror the body.
  const message =
    request.body.kind === 'json' ? (request.body.value as Record<string, unknown>) : undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    headers.push(['mcp-protocol-version', MODERN]);
    return headers;
  }
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = (typeof params === 'object' && params !== null ? params._meta : undefined) as
    | Record<string, unknown>
    | undefined;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  headers.push([
    'mcp-protocol-version',
    typeof version === 'string' ? headerText(version) : MODERN,
  ]);
  if (typeof message.method === 'string') headers.push(['mcp-method', headerText(message.method)]);
  const field = typeof message.method === 'string' ? NAMED_BY[message.method] : undefined;
  const name = field === undefined ? undefined : params[field];
  if (typeof name === 'string') headers.push(['mcp-name', headerText(name)]);
  const args = params.arguments as Record<string, unknown> | undefined;
  if (message.method === 'tools/call' && typeof args === 'object' && args !== null) {
    for (const [property, header] of [
      ['region', 'mcp-param-region'],
      ['n', 'mcp-param-n'],
      ['flag', 'mcp-param-flag'],
    ] as const) {
      const value = args[property];
      if (typeof value === 'string') headers.push([header, headerText(value)]);
      else if (typeof value === 'number' || typeof value === 'boolean')
        headers.push([header, String(value)]);
    }
  }
  return headers;
}

/** Builds the `Request` (to MCP_URL's scheme, with the generated path and authority). */
export function buildRequest(
  request: FuzzRequest,
  session: PoolSession | undefined,
  signal: AbortSignal,
): Request {
  const headers = new Headers();
  for (const [name, value] of baseHeaders(request, session)) headers.append(name, value);
  for (const op of request.headers) {
    try {
      if (op.op === 'drop') headers.delete(op.name);
      else if (op.op === 'set') headers.set(op.name, op.value);
      else headers.append(op.name, op.value);
    } catch {
      // A value no HTTP client could send (the generators avoid them; belt and braces).
    }
  }
  const method = request.httpMethod;
  const body = method === 'GET' || method === 'HEAD' ? undefined : bodyText(request.body);
  const url = `${new URL(MCP_URL).protocol}//${request.host}${request.path}`;
  return new Request(url, { method, headers, body, signal });
}
