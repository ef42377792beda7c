/**
 * Node `IncomingMessage` -> Web `Request`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { clientDisconnected } from './abort.ts';
import { createBodyStream, discardBody } from './body.ts';

const SLASH = 47;
const COLON = 58;

/**
 * A bracketed IPv6 literal or a name without URL delimiters, then an optional port. Anything else
 * would let the Host header rewrite the path or add credentials to the request URL.
 */
const HOST_PATTERN = /^(?:\[[\da-f:.]+\]|[^\s/?#@\\[\]:]+)(?::\d{1,5})?$/i;

/** `duplex` is in the Fetch spec and required by Node for stream bodies, but not in lib.dom yet. */
type RequestInitWithDuplex = RequestInit & { duplex?: 'half' };

/** One controller per exchange, found from the response so the close listener can be shared. */
const controllers = new WeakMap<ServerResponse, AbortController>();

/**
 * Shared `close` listener: EventEmitter calls it with the response as `this`, so no closure is
 * allocated per request. `res` (not `req`) is the right emitter: since Node 16 `req` closes as soon
 * as its body has been read, while `res` closes when the exchange is over. A finished response
 * also emits `close`; that is not a disconnect.
 */
function onResponseClose(this: ServerResponse): void {
  if (!this.writableFinished) controllers.get(this)?.abort(clientDisconnected());
  // A handler may answer without reading the body; drain it so keep-alive goes on.
  discardBody(this.req);
}

/**
 * Builds the Web `Request` for one exchange. Its `signal` aborts when `res` closes before the
 * response has been fully written, i.e. when the client disconnects.
 *
 * @throws TypeError when the request cannot be represented (invalid Host, forbidden method);
 *   the caller answers 400.
 */
export function createRequest(req: IncomingMessage, res: ServerResponse): Request {
  // Validate first: until the body is wrapped, Node itself drains it if we answer 400.
  const url = requestUrl(req);
  const method = req.method ?? 'GET';
  const controller = new AbortController();
  controllers.set(res, controller);
  res.on('close', onResponseClose);
  // The socket may already be gone (e.g. a pipelined request behind a dropped connection).
  if (res.destroyed && !res.writableFinished) controller.abort(clientDisconnected());
  const init: RequestInitWithDuplex = {
    method,
    headers: toHeaders(req),
    signal: controller.signal,
  };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = createBodyStream(req);
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/**
 * Copies `req.headers`, which Node has already joined per RFC 9110 (`, ` in general, `; ` for
 * Cookie, duplicates of single-valued fields dropped, Set-Cookie kept as an array).
 */
function toHeaders(req: IncomingMessage): Headers {
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

/** Clients send the same Host on every request: the last one that passed is not tested again. */
let lastValidHost: string | undefined;

export function requestUrl(req: IncomingMessage): string {
  const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host ?? (req.headers[':authority'] as string | undefined);
  const authority = host === undefined || host === '' ? localAuthority(req) : host;
  if (authority !== lastValidHost) {
    if (!HOST_PATTERN.test(authority)) throw new TypeError(`Invalid Host header: ${authority}`);
    lastValidHost = authority;
  }
  const target = req.url ?? '/';
  // Concatenate rather than resolve: resolving would read a target such as "//evil/x" as a host.
  return `${protocol}://${authority}${target.charCodeAt(0) === SLASH ? target : originForm(target)}`;
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
