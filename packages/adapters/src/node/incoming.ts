/**
 * A light request for handlers with a `handle()` entry (the core's): the fields the core reads,
 * straight from `IncomingMessage`, with no Web `Request`, `Headers` or body stream built unless
 * something asks for them.
 *
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { BodyCharge, IncomingRequest } from '@edge-mcp/core/adapter';
import { BodyTooLargeError, BudgetExceededError } from '@edge-mcp/core/adapter';
import { clientDisconnected } from './abort.ts';
import { createBodyStream, discardBody } from './body.ts';
import type { RequestUrls } from './request.ts';

/** Header lookups read Node's already lower-cased, already joined header object. */
class NodeHeaderReader {
  readonly #headers: IncomingHttpHeaders;
  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }
  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }
}

/**
 * The exchange's light request and body read hang off Node's own objects under private symbols,
 * not in weak maps: a weak-map entry per request costs an ephemeron write barrier and extra work in
 * every young-generation GC, which profiles showed on the hot path.
 */
const INCOMING = Symbol('edge-mcp.incoming');
const TEXT_READ = Symbol('edge-mcp.text-read');

type WithIncoming = ServerResponse & { [INCOMING]?: NodeIncoming | undefined };
type WithTextRead = IncomingMessage & { [TEXT_READ]?: TextRead | undefined };

/** Shared `close` listener (`this` is the response): a close before the end is a disconnect. */
function onResponseClose(this: ServerResponse): void {
  if (!this.writableFinished) (this as WithIncoming)[INCOMING]?.disconnected();
  (this as WithIncoming)[INCOMING] = undefined;
  discardBody(this.req);
}

/** A body being read whole: its state on one object, its listeners shared by every request. */
class TextRead {
  readonly chunks: Buffer[] = [];
  size = 0;
  readonly limit: number;
  /** Charged chunk by chunk (a body without Content-Length, which the core could not charge). */
  readonly charge: BodyCharge | undefined;
  readonly resolve: (text: string) => void;
  readonly reject: (error: unknown) => void;
  constructor(
    limit: number,
    charge: BodyCharge | undefined,
    resolve: (text: string) => void,
    reject: (error: unknown) => void,
  ) {
    this.limit = limit;
    this.charge = charge;
    this.resolve = resolve;
    this.reject = reject;
  }
}

/** Detaches the shared listeners and hands back the read, once. */
function finishText(req: IncomingMessage): TextRead | undefined {
  const read = (req as WithTextRead)[TEXT_READ];
  if (read === undefined) return undefined;
  (req as WithTextRead)[TEXT_READ] = undefined;
  req.off('data', onTextData).off('end', onTextEnd).off('error', onTextError);
  return read;
}

function failText(req: IncomingMessage, error: Error): void {
  const read = finishText(req);
  if (read === undefined) return;
  // Stop buffering; whatever still arrives is drained when the exchange closes.
  req.resume();
  read.reject(error);
}

function onTextData(this: IncomingMessage, chunk: Buffer): void {
  const read = (this as WithTextRead)[TEXT_READ];
  if (read === undefined) return;
  read.size += chunk.length;
  if (read.size > read.limit) failText(this, new BodyTooLargeError(read.limit));
  else if (read.charge !== undefined && !read.charge.take(chunk.length))
    failText(this, new BudgetExceededError());
  else read.chunks.push(chunk);
}

function onTextEnd(this: IncomingMessage): void {
  const read = finishText(this);
  if (read === undefined) return;
  const { chunks } = read;
  read.resolve(
    chunks.length === 1
      ? (chunks[0] as Buffer).toString('utf8')
      : Buffer.concat(chunks, read.size).toString('utf8'),
  );
}

function onTextError(this: IncomingMessage, error: Error): void {
  failText(this, error);
}

export class NodeIncoming implements IncomingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaderReader;
  readonly #req: IncomingMessage;
  #controller: AbortController | undefined;
  #watcher: { handleEvent(): void } | undefined;
  #gone = false;
  #body: ReadableStream<Uint8Array> | undefined;

  /** @throws TypeError for a request that cannot be represented (invalid Host); answer 400. */
  constructor(req: IncomingMessage, res: ServerResponse, urls: RequestUrls) {
    this.url = urls.of(req);
    this.method = req.method ?? 'GET';
    this.headers = new NodeHeaderReader(req.headers);
    this.#req = req;
    (res as WithIncoming)[INCOMING] = this;
    res.on('close', onResponseClose);
    if (res.destroyed && !res.writableFinished) this.#gone = true;
  }

  /** The peer's IP address (behind a proxy, the proxy's). */
  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  /** Aborts when the client disconnects before the response is complete (created on first read). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#gone) this.#controller.abort(clientDisconnected());
    }
    return this.#controller.signal;
  }

  /** One stream per request, made on first read (a second one would take the same bytes). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.method === 'GET' || this.method === 'HEAD') return null;
    this.#body ??= createBodyStream(this.#req);
    return this.#body;
  }

  /** Told once when the client leaves (the core's scope); no AbortSignal needed for it. */
  watch(listener: { handleEvent(): void } | undefined): void {
    this.#watcher = listener;
    if (listener && this.#gone) listener.handleEvent();
  }

  disconnected(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#controller?.abort(clientDisconnected());
    const watcher = this.#watcher;
    this.#watcher = undefined;
    watcher?.handleEvent();
  }

  /** The whole body, refusing more than `limit` bytes while reading (the rest is discarded). */
  readText(limit: number, charge?: BodyCharge): Promise<string> {
    const req = this.#req;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
    return new Promise((resolve, reject) => {
      (req as WithTextRead)[TEXT_READ] = new TextRead(limit, charge, resolve, reject);
      req.on('data', onTextData).on('end', onTextEnd).on('error', onTextError);
    });
  }
}
