/**
 * The invariants of one answer: never a 5xx (503 only from a closed handler, or a budget with
 * `Retry-After`), a 499 only for a client that left, and a body that is either a JSON-RPC
 * response (or a batch of them), empty where the protocol says so, or an event stream whose every
 * event is a JSON-RPC message with U+2028/U+2029 escaped.
 */

/** An invariant broken: what the lead needs to reproduce it. */
export class Finding extends Error {
  override readonly name = 'Finding';
  readonly kind: string;
  constructor(kind: string, detail: string) {
    super(`${kind}: ${detail}`);
    this.kind = kind;
  }
}

/** Statuses the endpoint may answer with (see the core README's error table). */
const ALLOWED = new Set([200, 202, 400, 403, 404, 405, 406, 413, 415, 429, 499, 503]);

export interface StatusContext {
  httpMethod: string;
  /** The client aborted the request's signal (before or while it was answered). */
  aborted: boolean;
  /** The handler was closed (or closing) when the answer came. */
  closed: boolean;
}

export function checkStatus(response: Response, ctx: StatusContext): void {
  const status = response.status;
  if (!ALLOWED.has(status))
    throw new Finding(status >= 500 ? '5xx' : 'unexpected-status', `HTTP ${status}`);
  if (status === 499 && !ctx.aborted) throw new Finding('499-without-abort', 'HTTP 499');
  if (status === 405 && !response.headers.get('allow'))
    throw new Finding('405-without-allow', 'no Allow header');
  if ((status === 429 || (status === 503 && !ctx.closed)) && !response.headers.get('retry-after'))
    throw new Finding(`${status}-without-retry-after`, 'no Retry-After header');
}

type Message = Record<string, unknown>;

function isObject(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON-RPC response: `id` (or null/absent for an unreadable request) and one of result/error. */
export function checkResponse(value: unknown, where: string): Message {
  if (!isObject(value)) throw new Finding('not-a-response', `${where}: ${preview(value)}`);
  if (value.jsonrpc !== '2.0') throw new Finding('not-a-response', `${where}: jsonrpc`);
  const id = value.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')
    throw new Finding('not-a-response', `${where}: id ${preview(id)}`);
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError)
    throw new Finding('not-a-response', `${where}: result xor error: ${preview(value)}`);
  if (hasError) {
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      throw new Finding('bad-error-object', `${where}: ${preview(error)}`);
  } else if (!isObject(value.result)) {
    throw new Finding('not-a-response', `${where}: result is not an object`);
  }
  return value;
}

/** A JSON-RPC message a server may put on a stream: a request, a notification or a response. */
export function checkStreamMessage(value: unknown): Message {
  if (!isObject(value) || value.jsonrpc !== '2.0')
    throw new Finding('bad-sse-message', preview(value));
  if (typeof value.method === 'string') {
    if ('params' in value && !isObject(value.params))
      throw new Finding('bad-sse-message', `params of ${value.method}`);
    return value;
  }
  return checkResponse(value, 'sse');
}

export interface JsonAnswer {
  /** The single response, when the body was one. */
  single: Message | undefined;
  /** Every response (one, or a batch's). */
  responses: Message[];
}

/** Checks a non-SSE body; `text` is the whole body. */
export function checkJsonBody(
  response: Response,
  text: string,
  ctx: StatusContext & { requestId: string | number | undefined },
): JsonAnswer {
  const status = response.status;
  if (text === '') {
    const emptyOk =
      status === 202 || status === 499 || (status === 200 && ctx.httpMethod === 'DELETE');
    if (!emptyOk) throw new Finding('empty-body', `HTTP ${status} with an empty body`);
    return { single: undefined, responses: [] };
  }
  if (status === 202) throw new Finding('202-with-body', preview(text));
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json'))
    throw new Finding('bad-content-type', `${type || '(none)'} for a non-empty body`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Finding('body-not-json', preview(text));
  }
  if (Array.isArray(value)) {
    if (status !== 200) throw new Finding('batch-status', `HTTP ${status}`);
    // JSON-RPC has no empty batch answer (a batch whose client left is an empty 499).
    if (value.length === 0) throw new Finding('empty-batch-answer', '[]');
    return { single: undefined, responses: value.map((v, i) => checkResponse(v, `batch[${i}]`)) };
  }
  const single = checkResponse(value, 'body');
  // 503 is for a closed handler, or a budget (-32000, Retry-After); anything else is a 5xx.
  if (status === 503 && !ctx.closed && (single.error as Message | undefined)?.code !== -32000)
    throw new Finding('5xx', `HTTP 503 from an open handler: ${preview(single)}`);
  if (status >= 400 && !('error' in single))
    throw new Finding('error-status-with-result', `HTTP ${status}`);
  if (
    status === 200 &&
    ctx.requestId !== undefined &&
    single.id !== ctx.requestId &&
    !(single.id === undefined || single.id === null)
  )
    throw new Finding('wrong-id', `${preview(single.id)} answers ${preview(ctx.requestId)}`);
  return { single, responses: [single] };
}

/** Raw U+2028/U+2029 in an SSE data line (some clients split lines on them). */
export function checkSseData(data: string): void {
  if (/[\u2028\u2029]/.test(data))
    throw new Finding('unescaped-line-separator', 'U+2028/U+2029 raw in SSE data');
}

export function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
}
