import { DEFAULTS } from '../defaults.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { IncomingRequest } from './incoming.ts';
import { errorResponse, Reply } from './responses.ts';

/** The `cors` option: which browser origins may call the endpoint. */
export interface CorsOptions {
  /** Origins (`scheme://host[:port]`) allowed to call from a browser; `'*'` allows any. */
  origins: readonly string[] | '*';
  /** How long a browser may reuse a preflight answer. @default 600 */
  maxAgeSeconds?: number;
}

/** Request headers an MCP client sends (besides `Mcp-Param-*`, allowed as asked). */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
];

/** What a browser client must be able to read: the session id, the version, the challenge. */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';
const METHODS = 'GET, POST, DELETE';
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * CORS for browser clients on other origins: preflights answered 204 with the MCP request
 * headers allowed, answers carrying `Access-Control-Allow-Origin` and the MCP response headers
 * exposed. The same origins pass the endpoint's Origin check (DNS-rebinding protection).
 */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string> | '*';
  readonly #maxAge: string;

  constructor(options: CorsOptions) {
    this.#origins =
      options.origins === '*' ? '*' : new Set(options.origins.map((o) => o.toLowerCase()));
    this.#maxAge = String(options.maxAgeSeconds ?? DEFAULTS.cors.maxAgeSeconds);
  }

  /** The origins, for the Origin check. */
  get origins(): readonly string[] | '*' {
    return this.#origins === '*' ? '*' : [...this.#origins];
  }

  allows(origin: string): boolean {
    return this.#origins === '*' || this.#origins.has(origin.toLowerCase());
  }

  /** The answer to an OPTIONS request: a preflight of an allowed origin, or 403. */
  preflight(request: IncomingRequest): Reply {
    const origin = request.headers.get('origin');
    if (origin === null || !this.allows(origin))
      return errorResponse(
        403,
        ErrorCode.InvalidRequest,
        `Origin not allowed: ${origin ?? '(none)'}`,
      );
    const asked = (request.headers.get('access-control-request-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name.startsWith('mcp-param-') && TOKEN.test(name));
    return new Reply(204, null, {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': METHODS,
      'access-control-allow-headers': [...ALLOWED_HEADERS, ...asked].join(', '),
      'access-control-max-age': this.#maxAge,
      vary: 'Origin',
    });
  }

  /** The headers an answer to `origin` carries. */
  headers(origin: string): Record<string, string> {
    return {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': EXPOSED,
      vary: 'Origin',
    };
  }
}

/** `answer` with `headers` added: a copy of a plain reply, the stream's own headers set. */
export function withHeaders<A extends Reply | Response>(
  answer: A,
  headers: Record<string, string>,
): A {
  if (answer instanceof Reply)
    return new Reply(answer.status, answer.body, { ...answer.headers, ...headers }) as A;
  for (const [name, value] of Object.entries(headers)) answer.headers.set(name, value);
  return answer;
}

/** The Origins the Host/Origin guard lets through: the allowed ones and CORS's. */
export function allowedOrigins(
  origins: readonly string[] | '*' | undefined,
  cors: CorsPolicy | undefined,
): readonly string[] | '*' | undefined {
  if (cors === undefined || origins === '*') return origins;
  const fromCors = cors.origins;
  return fromCors === '*' ? '*' : [...(origins ?? []), ...fromCors];
}
