/**
 * The `trustProxy` option: what reverse proxies in front of the server say about a request
 * (`Forwarded`, RFC 7239, or the `X-Forwarded-For` / `-Host` / `-Proto` family), believed only
 * when the connection comes from a trusted proxy. Headers from anyone else are ignored, so a
 * client cannot claim another address or host.
 *
 * @module
 */
import { HEADER } from '../protocol/constants.ts';
import type { IncomingRequest } from './incoming.ts';
import { AddressList } from './ip-match.ts';
import { authorityOf } from './url.ts';

/**
 * Which proxies to believe: a hop count (`1`: the peer of the connection is a proxy, as with one
 * nginx or one load balancer in front), or the addresses and CIDR ranges of the proxies (also
 * `loopback`, `private`, `linklocal`).
 */
export type TrustProxy = number | readonly string[];

/** What the trusted proxies report of one request; fields they did not report are `undefined`. */
export interface Forwarding {
  /** The client's address: the nearest address in the chain that is not a trusted proxy. */
  readonly clientAddress: string | undefined;
  /** `host[:port]` as the client addressed it, lower-cased. */
  readonly host: string | undefined;
  /** `http` or `https`, as the client connected to the first proxy. */
  readonly proto: string | undefined;
}

/** A bracketed IPv6 literal or a name without URL delimiters, then an optional port. */
const HOST_PATTERN = /^(?:\[[\da-f:.]+\]|[^\s/?#@\\[\]:,;"]+)(?::\d{1,5})?$/i;

/** The parsed option, built once per handler. */
export class ProxyTrust {
  readonly #hops: number;
  readonly #list: AddressList | undefined;

  /** @throws TypeError for a negative or fractional hop count, or an entry that is no address. */
  constructor(option: TrustProxy) {
    if (typeof option === 'number') {
      if (!Number.isInteger(option) || option < 0)
        throw new TypeError(`trustProxy: a hop count must be a whole number ≥ 0, not ${option}`);
      this.#hops = option;
    } else {
      this.#hops = 0;
      this.#list = new AddressList(option);
    }
  }

  /** What the proxies say of `request`; nothing when its peer is not a trusted proxy. */
  read(request: Pick<IncomingRequest, 'headers' | 'remoteAddress'>): Forwarding {
    const peer = request.remoteAddress;
    if (!this.#trusts(peer, 0)) return { clientAddress: peer, host: undefined, proto: undefined };
    const headers = request.headers;
    const forwarded = headers.get(HEADER.forwarded);
    const elements = forwarded === null ? undefined : parseForwarded(forwarded);
    const chain =
      elements?.map((element) => element.for) ?? splitList(headers.get(HEADER.xForwardedFor));
    // Right to left: each trusted proxy vouches for the address before it; the first address
    // that is no trusted proxy is the client (all trusted: the leftmost is).
    let index = chain.length;
    for (let hop = 1; index > 0; hop++) {
      index--;
      if (!this.#trusts(chain[index], hop)) break;
    }
    const clientAddress = chain.length === 0 ? peer : chain[index];
    if (elements !== undefined) {
      const element = elements[index];
      return { clientAddress, host: element?.host, proto: element?.proto };
    }
    return {
      clientAddress,
      host: lastOf(headers.get(HEADER.xForwardedHost))?.toLowerCase(),
      proto: lastOf(headers.get(HEADER.xForwardedProto))?.toLowerCase(),
    };
  }

  /** Whether the address `hop` steps from the server (the peer is 0) is a trusted proxy. */
  #trusts(address: string | undefined, hop: number): boolean {
    if (this.#list === undefined) return hop < this.#hops;
    return address !== undefined && this.#list.has(address);
  }
}

/** The client's address: what trusted proxies forwarded, else the connection's peer. */
export function clientAddressOf(
  request: Pick<IncomingRequest, 'headers' | 'remoteAddress'>,
  trust: ProxyTrust | undefined,
): string | undefined {
  return trust ? trust.read(request).clientAddress : request.remoteAddress;
}

/** Whether `host` can be the authority of a URL (so a forwarded value cannot rewrite the path). */
export function isValidHost(host: string): boolean {
  return HOST_PATTERN.test(host);
}

/** `host[:port]` the client addressed: the forwarded one when trusted, else the request URL's. */
export function addressedAuthority(
  request: { readonly url: string },
  forwarding: Forwarding | undefined,
): string {
  return forwarding?.host ?? authorityOf(request.url);
}

/** The scheme the client used: the forwarded one when trusted, else the request URL's. */
export function addressedScheme(
  request: { readonly url: string },
  forwarding: Forwarding | undefined,
): string {
  const proto = forwarding?.proto;
  if (proto === 'https' || proto === 'http') return proto;
  return request.url.startsWith('https:') ? 'https' : 'http';
}

/** The request URL as the client addressed it (scheme and host as forwarded, when trusted). */
export function addressedUrl(
  request: { readonly url: string },
  forwarding: Forwarding | undefined,
): string {
  const url = request.url;
  if (forwarding === undefined || (forwarding.host === undefined && forwarding.proto === undefined))
    return url;
  const host = forwarding.host;
  const authority = host !== undefined && isValidHost(host) ? host : authorityOf(url);
  const start = url.indexOf('//') + 2;
  const slash = url.indexOf('/', start);
  const rest = slash === -1 ? '/' : url.slice(slash);
  return `${addressedScheme(request, forwarding)}://${authority}${rest}`;
}

interface ForwardedElement {
  for: string | undefined;
  host: string | undefined;
  proto: string | undefined;
}

/** `Forwarded` (RFC 7239): one element per hop, `for=`, `host=` and `proto=` read, quotes removed. */
function parseForwarded(value: string): ForwardedElement[] {
  const elements: ForwardedElement[] = [];
  for (const part of splitOutsideQuotes(value, ',')) {
    const element: ForwardedElement = { for: undefined, host: undefined, proto: undefined };
    for (const pair of splitOutsideQuotes(part, ';')) {
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      const name = pair.slice(0, eq).trim().toLowerCase();
      const raw = unquote(pair.slice(eq + 1).trim());
      if (name === 'for') element.for = nodeAddress(raw);
      else if (name === 'host') element.host = raw.toLowerCase();
      else if (name === 'proto') element.proto = raw.toLowerCase();
    }
    elements.push(element);
  }
  return elements;
}

/** The address of a `for=` node: brackets and port dropped; `unknown` and obfuscated names are none. */
function nodeAddress(node: string): string | undefined {
  if (node.startsWith('[')) {
    const end = node.indexOf(']');
    return end === -1 ? undefined : node.slice(1, end);
  }
  if (node === 'unknown' || node.startsWith('_')) return undefined;
  const colon = node.indexOf(':');
  return colon === -1 ? node : node.slice(0, colon);
}

function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"') quoted = !quoted;
    else if (c === separator && !quoted) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1).replace(/\\(.)/g, '$1')
    : value;
}

/** `X-Forwarded-For`: client first, then each proxy; an IPv4 `address:port` loses the port. */
function splitList(value: string | null): Array<string | undefined> {
  if (value === null) return [];
  return value.split(',').map((item) => {
    const address = item.trim();
    if (address === '') return undefined;
    const colon = address.indexOf(':');
    if (address.startsWith('[')) return nodeAddress(address);
    return colon !== -1 && colon === address.lastIndexOf(':') ? address.slice(0, colon) : address;
  });
}

/** The value the nearest proxy set: the last of a comma-separated list. */
function lastOf(value: string | null): string | undefined {
  if (value === null) return undefined;
  const last = value.slice(value.lastIndexOf(',') + 1).trim();
  return last === '' ? undefined : last;
}
