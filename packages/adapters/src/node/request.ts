/**
 * Node `IncomingMessage` -> the absolute request URL and Web `Headers`.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

const SLASH = 47;
const COLON = 58;

/**
 * A bracketed IPv6 literal or a name without URL delimiters, then an optional port. Anything else
 * would let the Host header rewrite the path or add credentials to the request URL.
 */
const HOST_PATTERN = /^(?:\[[\da-f:.]+\]|[^\s/?#@\\[\]:]+)(?::\d{1,5})?$/i;

/**
 * Copies `req.headers`, which Node has already joined per RFC 9110 (`, ` in general, `; ` for
 * Cookie, duplicates of single-valued fields dropped, Set-Cookie kept as an array).
 */
export function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const source = req.headers;
  for (const name in source) {
    // HTTP/2 pseudo-headers (":path", ":authority", ...) are not valid field names.
    if (name.charCodeAt(0) === COLON) continue;
    const value = source[name];
    if (typeof value === 'string') headers.append(name, value);
    else if (value !== undefined) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/**
 * Builds each request's absolute URL. Clients send the same Host on every request: the last one
 * that passed is not tested again (one per listener, not a module global).
 */
export class RequestUrls {
  #lastValidHost: string | undefined;

  /** @throws TypeError for an invalid Host header. */
  of(req: IncomingMessage): string {
    const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    const host = req.headers.host ?? (req.headers[':authority'] as string | undefined);
    const authority = host === undefined || host === '' ? localAuthority(req) : host;
    if (authority !== this.#lastValidHost) {
      if (!HOST_PATTERN.test(authority)) throw new TypeError(`Invalid Host header: ${authority}`);
      this.#lastValidHost = authority;
    }
    const target = req.url ?? '/';
    // Concatenate rather than resolve: resolving would read a target such as "//evil/x" as a host.
    return `${protocol}://${authority}${target.charCodeAt(0) === SLASH ? target : originForm(target)}`;
  }
}

/** Absolute-form targets are meant for proxies (RFC 9112 §3.2.2); keep only their path. */
function originForm(target: string): string {
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return '/';
  }
}

/** HTTP/1.0 clients may omit Host; fall back to the address the connection arrived on. */
function localAuthority(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  if (localAddress === undefined) return 'localhost';
  const address = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? address : `${address}:${localPort}`;
}
