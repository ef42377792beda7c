import type { IncomingRequest } from './incoming.ts';

/** RFC 6750 §2.1: `Bearer <token68>`, the scheme case-insensitive. */
const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/**
 * The bearer token of a request: the token, `undefined` when the request carries none, or
 * `false` when it carries an `Authorization` header that is not a well-formed bearer token.
 */
export function bearerToken(request: IncomingRequest): string | undefined | false {
  const header = request.headers.get('authorization');
  if (header === null) return undefined;
  const match = BEARER.exec(header);
  return match ? (match[1] as string) : false;
}

/** A `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3) with quoted-string parameters. */
export function bearerChallenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) parts.push(`${name}="${value.replace(/["\\]/g, '\\$&')}"`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}
