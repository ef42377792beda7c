/**
 * A `Response` kept as plain data until somebody needs more: status and headers are read
 * directly, anything else (the body stream, `clone()`, `text()`…) builds the real `Response` once
 * and is served by it. The Node adapter writes an untouched one in a single write; elsewhere it
 * behaves as the `Response` it stands for (`instanceof Response` holds).
 *
 * @module
 */
import { standInOnFirstUse } from './stand-in.ts';
import { isResponse, type PlainReply } from './types.ts';

/**
 * Where a body stream made from a whole text keeps that text: the real `Response` of a light one
 * tags its body, and the tag travels with the stream when a framework wraps the answer in a new
 * `Response` (Hono does `new Response(res.body, res)` whenever middleware touched `c.res`, e.g.
 * `cors()`): the Node adapter then writes the text at once instead of reading the stream.
 */
const KNOWN_TEXT: unique symbol = Symbol.for('edge-mcp.known-text');

type Tagged = ReadableStream<Uint8Array> & { [KNOWN_TEXT]?: string };

/**
 * The whole text of `body` when it was made from one and nobody has read from it (not locked,
 * not disturbed: `bodyUsed` of the response carrying it is false).
 */
export function knownText(
  response: Response,
  body: ReadableStream<Uint8Array>,
): string | undefined {
  const text = (body as Tagged)[KNOWN_TEXT];
  return text !== undefined && !body.locked && !response.bodyUsed ? text : undefined;
}

export class LightResponse {
  readonly #reply: PlainReply;
  #headers: Headers | undefined;
  #response: Response | undefined;

  constructor(reply: PlainReply) {
    link();
    this.#reply = reply;
  }

  get status(): number {
    return this.#reply.status;
  }

  get ok(): boolean {
    return this.#reply.status >= 200 && this.#reply.status < 300;
  }

  get statusText(): string {
    return this.#response?.statusText ?? '';
  }

  get redirected(): boolean {
    return false;
  }

  get type(): ResponseType {
    return 'default';
  }

  get url(): string {
    return '';
  }

  /** Real, mutable `Headers` (middleware may add to them); built on first access. */
  get headers(): Headers {
    if (this.#response) return this.#response.headers;
    this.#headers ??= new Headers(this.#reply.headers);
    return this.#headers;
  }

  get bodyUsed(): boolean {
    return this.#response?.bodyUsed ?? false;
  }

  /** The real `Response`, built once; from then on it answers for this object. */
  static real(light: LightResponse): Response {
    if (!light.#response) {
      const reply = light.#reply;
      const response = new Response(reply.body, {
        status: reply.status,
        headers: light.#headers ?? reply.headers,
      });
      if (reply.body !== null && response.body !== null) {
        (response.body as Tagged)[KNOWN_TEXT] = reply.body;
      }
      light.#response = response;
    }
    return light.#response;
  }

  /**
   * What to write when nothing has asked for the real `Response` yet: status, headers (the plain
   * record, or the `Headers` middleware changed) and the text body.
   */
  static plain(
    response: Response,
  ):
    | { status: number; headers: Headers | Readonly<Record<string, string>>; body: string | null }
    | undefined {
    if (!(#reply in response)) return undefined;
    const light = response as unknown as LightResponse;
    if (light.#response) return undefined;
    const reply = light.#reply;
    return { status: reply.status, headers: light.#headers ?? reply.headers, body: reply.body };
  }
}

// The rest of Response's interface is answered by the real Response; `instanceof Response` holds.
const link = standInOnFirstUse(LightResponse, () => Response, LightResponse.real);

/** A `Response` for `answer`: a plain reply becomes a {@link LightResponse}. */
export function lightResponse(answer: Response | PlainReply): Response {
  return isResponse(answer) ? answer : (new LightResponse(answer) as unknown as Response);
}

/** A real `Response` for `answer` (runtimes that need one: Deno, Bun, workerd). */
export function toWebResponse(answer: Response | PlainReply): Response {
  return isResponse(answer)
    ? answer
    : new Response(answer.body, { status: answer.status, headers: answer.headers });
}
