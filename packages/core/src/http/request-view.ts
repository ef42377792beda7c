/**
 * `ctx.request`: what a tool, resource or prompt may read of the HTTP request that carried its
 * call. Built on first read, from the request the exchange keeps, so calls that never look at it
 * pay nothing.
 *
 * @module
 */
import { addressedUrl, type Forwarding, type ProxyTrust } from './forwarded.ts';
import type { IncomingRequest } from './incoming.ts';

/** Read-only request headers (names are case-insensitive). */
export interface RequestHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** The HTTP request behind a call, as `ctx.request` shows it. */
export interface RequestInfo {
  /** `POST` for calls; `GET` for a legacy session's standalone stream. */
  readonly method: string;
  /**
   * The URL as the client addressed it: behind proxies the `trustProxy` option trusts, with the
   * scheme and host they forwarded; otherwise the URL the server received.
   */
  readonly url: string;
  readonly headers: RequestHeaders;
  /**
   * The client's IP address: the connection's peer, or behind trusted proxies the address they
   * forwarded; `undefined` when the runtime does not say.
   */
  readonly clientAddress: string | undefined;
}

/** What `ctx.request` shows of a call no HTTP request carried (none, today). */
const NO_REQUEST: Pick<IncomingRequest, 'method' | 'url' | 'headers' | 'remoteAddress'> = {
  method: 'POST',
  url: 'http://localhost/',
  headers: { get: () => null },
};

export class RequestView implements RequestInfo {
  readonly #request: Pick<IncomingRequest, 'method' | 'url' | 'headers' | 'remoteAddress'>;
  readonly #forwarding: Forwarding | undefined;
  #url: string | undefined;
  #headers: RequestHeaders | undefined;

  constructor(request: IncomingRequest | undefined, trust: ProxyTrust | undefined) {
    this.#request = request ?? NO_REQUEST;
    this.#forwarding = request && trust?.read(request);
  }

  get method(): string {
    return this.#request.method;
  }
  get url(): string {
    this.#url ??= addressedUrl(this.#request, this.#forwarding);
    return this.#url;
  }
  get headers(): RequestHeaders {
    this.#headers ??= new ReadonlyHeaders(this.#request.headers);
    return this.#headers;
  }
  get clientAddress(): string | undefined {
    return this.#forwarding ? this.#forwarding.clientAddress : this.#request.remoteAddress;
  }
}

/** Only reads reach the request's own headers (a Web `Headers` would also let a tool change them). */
class ReadonlyHeaders implements RequestHeaders {
  readonly #headers: IncomingRequest['headers'];
  constructor(headers: IncomingRequest['headers']) {
    this.#headers = headers;
  }
  get(name: string): string | null {
    return this.#headers.get(name);
  }
  has(name: string): boolean {
    return this.#headers.get(name) !== null;
  }
}
