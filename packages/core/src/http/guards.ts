import { HEADER } from '../protocol/constants.ts';
import { addressedAuthority, addressedScheme, type Forwarding, isValidHost } from './forwarded.ts';
import type { IncomingRequest } from './incoming.ts';
import { hostnameOf } from './url.ts';

/**
 * DNS-rebinding protection: the Host the client addressed and any Origin must be allowed. By
 * default only loopback names are: a server reachable under another name must list it. Behind
 * trusted proxies (`trustProxy`) the host is the one they forwarded.
 */
export interface HostPolicy {
  hosts: ReadonlySet<string> | '*';
  origins: ReadonlySet<string> | '*';
  /** The request URL that passed last: the check is skipped for it. */
  lastAllowedUrl?: string | undefined;
  /** The forwarded host (`trustProxy`) that passed last. */
  lastAllowedHost?: string | undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function hostPolicy(
  hosts: readonly string[] | '*' | undefined,
  origins: readonly string[] | '*' | undefined,
): HostPolicy {
  return {
    hosts: hosts === '*' ? '*' : new Set((hosts ?? []).map((h) => h.toLowerCase())),
    origins: origins === '*' ? '*' : new Set((origins ?? []).map((o) => o.toLowerCase())),
  };
}

/** Why a request must be refused with 403, and what to tell the client. */
export interface HostRefusal {
  readonly reason: 'host-not-allowed' | 'origin-not-allowed';
  readonly message: string;
}

/**
 * What refuses the request with 403, or `undefined` when its Host and Origin may call.
 * `forwarding`: what trusted proxies reported (with `trustProxy`).
 */
export function checkHost(
  request: IncomingRequest,
  policy: HostPolicy,
  forwarding?: Forwarding,
): HostRefusal | undefined {
  if (policy.hosts !== '*') {
    // Clients reach one endpoint under one name: the request URL, or forwarded host, that
    // passed last is not parsed again (each in its own memo: a forwarded value equal to a
    // URL must still be checked).
    const forwardedHost = forwarding?.host;
    const passed = forwardedHost === undefined ? policy.lastAllowedUrl : policy.lastAllowedHost;
    if ((forwardedHost ?? request.url) !== passed) {
      const authority = addressedAuthority(request, forwarding);
      const host = hostnameOf(authority);
      if (
        !isValidHost(authority) ||
        (!LOOPBACK.has(host) && !policy.hosts.has(host) && !policy.hosts.has(authority))
      )
        return { reason: 'host-not-allowed', message: `Host not allowed: ${authority}` };
      if (forwardedHost === undefined) policy.lastAllowedUrl = request.url;
      else policy.lastAllowedHost = forwardedHost;
    }
  }
  const origin = request.headers.get(HEADER.origin);
  if (origin !== null && policy.origins !== '*') {
    const normalized = origin.toLowerCase();
    if (policy.origins.has(normalized) || sameOrigin(normalized, request, forwarding))
      return undefined;
    let hostname: string | undefined;
    try {
      hostname = new URL(normalized).hostname;
    } catch {}
    if (hostname === undefined || !LOOPBACK.has(hostname))
      return { reason: 'origin-not-allowed', message: `Origin not allowed: ${origin}` };
  }
  return undefined;
}

/**
 * A page served from the endpoint's own origin (as addressed, its host already checked) is not
 * a cross-origin caller: a rebinding page's origin carries the rebinding host, refused above.
 */
function sameOrigin(
  origin: string,
  request: IncomingRequest,
  forwarding: Forwarding | undefined,
): boolean {
  const authority = addressedAuthority(request, forwarding);
  const scheme = addressedScheme(request, forwarding);
  return origin === `${scheme}://${authority}`;
}

/**
 * Whether `Accept` admits both JSON and SSE (wildcards count). Clients send the same Accept on
 * every request: the last verdict is reused (one per handler, not a module global).
 */
export class AcceptCheck {
  #lastAccept: string | undefined;
  #lastVerdict = false;

  acceptsBoth(accept: string | null): boolean {
    if (accept === null) return false;
    if (accept === this.#lastAccept) return this.#lastVerdict;
    this.#lastVerdict = parseAccept(accept);
    this.#lastAccept = accept;
    return this.#lastVerdict;
  }
}

function parseAccept(accept: string): boolean {
  const types = accept.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase());
  const any = types.includes('*/*');
  return (
    (any || types.includes('application/json') || types.includes('application/*')) &&
    (any || types.includes('text/event-stream') || types.includes('text/*'))
  );
}

export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  // The common exact value first; then parameters (charset) and case.
  if (value === 'application/json') return true;
  return value.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
