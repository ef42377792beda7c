/**
 * A Web `Request` built only if something needs it. Frameworks such as Hono read `method`, `url`
 * and perhaps a header or two; those come straight from Node's `IncomingMessage`. Anything else
 * (the body, `clone()`, `json()`, `formData()`…) builds the real `Request` once and is served by
 * it. `instanceof Request` holds.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { IncomingRequest } from '@edge-mcp/core/adapter';
import { standIn } from '../shared/stand-in.ts';
import { LIGHT_INCOMING } from '../shared/types.ts';
import type { NodeIncoming } from './incoming.ts';
import { toHeaders } from './request.ts';

/** `duplex` is in the Fetch spec and required by Node for stream bodies, but not in lib.dom yet. */
type RequestInitWithDuplex = RequestInit & { duplex?: 'half' };

export class LazyRequest {
  readonly #incoming: NodeIncoming;
  readonly #req: IncomingMessage;
  #headers: Headers | undefined;
  #request: Request | undefined;

  constructor(incoming: NodeIncoming, req: IncomingMessage) {
    this.#incoming = incoming;
    this.#req = req;
  }

  /** The light request, for `mcp()`: only while the body is untouched (no real Request yet). */
  get [LIGHT_INCOMING](): IncomingRequest | undefined {
    return this.#request ? undefined : this.#incoming;
  }

  get method(): string {
    return this.#incoming.method;
  }

  get url(): string {
    return this.#incoming.url;
  }

  get headers(): Headers {
    if (this.#request) return this.#request.headers;
    this.#headers ??= toHeaders(this.#req);
    return this.#headers;
  }

  get signal(): AbortSignal {
    return this.#incoming.signal;
  }

  /** The real `Request`, built once (with the body as a stream); it then answers for this one. */
  static real(lazy: LazyRequest): Request {
    if (!lazy.#request) {
      const incoming = lazy.#incoming;
      const init: RequestInitWithDuplex = {
        method: incoming.method,
        headers: lazy.headers,
        signal: incoming.signal,
      };
      const body = incoming.body;
      if (body !== null) {
        init.body = body;
        init.duplex = 'half';
      }
      lazy.#request = new Request(incoming.url, init);
    }
    return lazy.#request;
  }
}

// The rest of Request's interface, and the internal slots Node's own code reads (so that
// `new Request(lazy, init)` copies it), are answered by the real Request; `instanceof` holds.
standIn(LazyRequest, Request, LazyRequest.real, new Request('http://localhost/'));
