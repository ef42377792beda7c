import type { AbortReasonType, RequestAbortedError } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { KEEP_ALIVE } from '../sse/encoder.ts';
import { SSE_HEADERS, SseStream } from '../sse/stream.ts';
import { type Answer, emptyReply, errorResponse, JSON_HEADERS, Reply } from './responses.ts';

/**
 * One JSON-RPC request over one HTTP exchange: a leaf of the cancellation tree that also owns
 * the response. It answers JSON when the handler only returns a result, and switches to SSE the
 * moment the handler sends a notification first (progress, log) or a stream is asked for.
 *
 * Once aborted, nothing more is written: a disconnect resolves the pending response with an
 * empty 499 nobody reads, a shutdown with a 503 error (or ends the stream, after `farewell`).
 */
export class Exchange extends Scope {
  readonly id: RequestId;
  readonly method: string;
  readonly started: number = performance.now();
  /** Tool, prompt or resource the request names, for the request log. */
  name: string | undefined;
  /** JSON-RPC error code the request was answered with, if any (for the request log). */
  errorCode: number | undefined;
  /** Final message written to an open stream when it is shut down (listen results). */
  farewell: string | undefined;
  readonly response: Promise<Answer>;
  #resolve!: (response: Answer) => void;
  #sse: SseStream | undefined;
  #finished = false;
  readonly #keepAliveMs: number;

  #early: ReturnType<typeof setTimeout> | undefined;

  /** `streamAfterMs`: switch to SSE if still running after that long (undefined: only on demand). */
  constructor(
    parent: Scope,
    id: RequestId,
    method: string,
    keepAliveMs: number,
    streamAfterMs?: number,
  ) {
    super(parent);
    this.id = id;
    this.method = method;
    this.#keepAliveMs = keepAliveMs;
    this.response = new Promise<Answer>((resolve) => {
      this.#resolve = resolve;
    });
    if (this.aborted) this.#settleAborted(this.reason ?? 'shutdown');
    else if (streamAfterMs !== undefined)
      this.#early = setTimeout(streamEarly, streamAfterMs, this);
  }

  /** Switches a still-running answer to SSE and writes a first comment, so the client gets headers
   * and the runtime a write that fails if the client has gone (workerd learns of it no other way). */
  streamEarly(): void {
    this.#early = undefined;
    if (!this.finished && !this.#sse) this.stream().write(KEEP_ALIVE);
  }

  override dispose(): void {
    super.dispose();
    if (this.#early !== undefined) clearTimeout(this.#early);
    this.#early = undefined;
  }

  /** True once the result (or error) went out, or the exchange was aborted. */
  get finished(): boolean {
    return this.#finished || this.aborted;
  }

  /** SseOwner: the client cancelled the SSE body. */
  disconnected(): void {
    this.abort('disconnect');
  }

  /** Sends a notification that belongs to this request, upgrading the answer to SSE if needed. */
  notify(json: string): boolean {
    if (this.finished) return false;
    return this.stream().send(json);
  }

  /** The SSE stream of this answer, created (and the response sent) on first use. */
  stream(): SseStream {
    if (!this.#sse) {
      this.#sse = new SseStream(this, this.#keepAliveMs);
      this.#resolve(new Response(this.#sse.readable, { status: 200, headers: SSE_HEADERS }));
    }
    return this.#sse;
  }

  /** Sends the final JSON-RPC message (result or error) and ends the exchange. */
  reply(json: string, status = 200): void {
    if (this.finished) return;
    this.#finished = true;
    if (this.#sse) {
      this.#sse.send(json);
      this.#sse.close();
    } else {
      this.#resolve(new Reply(status, json, JSON_HEADERS));
    }
  }

  override abort(type: AbortReasonType, error?: RequestAbortedError): void {
    if (this.aborted) return;
    super.abort(type, error);
    if (!this.#finished) this.#settleAborted(type);
  }

  #settleAborted(type: AbortReasonType): void {
    this.#finished = true;
    if (this.#sse) {
      if (type === 'shutdown' && this.farewell !== undefined) this.#sse.send(this.farewell);
      this.#sse.close();
    } else if (type === 'disconnect') {
      this.#resolve(emptyReply(499));
    } else {
      this.#resolve(errorResponse(503, -32603, 'The server is shutting down', this.id));
    }
  }
}

function streamEarly(exchange: Exchange): void {
  exchange.streamEarly();
}
