import { ExchangeBase } from '../http/exchange-base.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { KEEP_ALIVE } from '../sse/encoder.ts';
import { SSE_HEADERS, SseStream } from '../sse/stream.ts';

/**
 * A 2026-07-28 exchange: JSON, or a plain SSE stream the moment the handler sends a notification
 * first (progress, log) or a stream is asked for (listen). A client that leaves aborts it at once.
 */
export class ModernExchange extends ExchangeBase {
  /** Final message written to an open stream when it is shut down (listen results). */
  farewell: string | undefined;
  #sse: SseStream | undefined;
  readonly #keepAliveMs: number;

  /** `streamAfterMs`: switch to SSE if still running after that long (undefined: only on demand). */
  constructor(
    parent: Scope,
    id: RequestId,
    method: string,
    keepAliveMs: number,
    streamAfterMs?: number,
  ) {
    super(parent, id, method);
    this.#keepAliveMs = keepAliveMs;
    this.begin(streamAfterMs);
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
      this.resolve(new Response(this.#sse.readable, { status: 200, headers: SSE_HEADERS }));
    }
    return this.#sse;
  }

  protected get streaming(): boolean {
    return this.#sse !== undefined;
  }

  protected openEarly(): void {
    this.stream().write(KEEP_ALIVE);
  }

  protected finishStream(json: string): void {
    const sse = this.#sse as SseStream;
    sse.send(json);
    sse.close();
  }

  protected endStream(type: AbortReasonType): void {
    const sse = this.#sse as SseStream;
    if (type === 'shutdown' && this.farewell !== undefined) sse.send(this.farewell);
    sse.close();
  }
}
