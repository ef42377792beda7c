import { ExchangeBase } from '../http/exchange-base.ts';
import type { StreamSettings } from '../http/stream-settings.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { errorMessage, type RequestId } from '../protocol/jsonrpc.ts';
import { KEEP_ALIVE } from '../sse/encoder.ts';
import { type Coalescing, SSE_HEADERS, SseStream } from '../sse/stream.ts';

/**
 * A 2026-07-28 exchange: JSON, or a plain SSE stream the moment the handler sends a notification
 * first (progress, log) or a stream is asked for (listen). A client that leaves aborts it at once;
 * a client that stops reading gets an error result at the end of what it has not read, and the
 * handler is aborted (`stream-overflow`).
 */
export class ModernExchange extends ExchangeBase {
  /** Final message written to an open stream when it is shut down (listen results). */
  farewell: string | undefined;
  #sse: SseStream | undefined;
  readonly #settings: StreamSettings;

  constructor(parent: Scope, id: RequestId, method: string, settings: StreamSettings) {
    super(parent, id, method);
    this.#settings = settings;
    this.begin(settings.streamAfterMs);
  }

  /** SseOwner: the client cancelled the SSE body. */
  disconnected(): void {
    this.abort('disconnect');
  }

  /** SseOwner: the client stopped reading; it gets an error as the stream's last message. */
  overflowed(): void {
    if (this.finished) return;
    this.#settings.counters.overflowed++;
    this.errorCode = ErrorCode.InternalError;
    this.reply(
      errorMessage(this.id, {
        code: ErrorCode.InternalError,
        message: 'The client did not read its stream fast enough',
      }),
    );
    this.abort('stream-overflow');
  }

  /** Sends a notification that belongs to this request, upgrading the answer to SSE if needed. */
  notify(json: string, coalescing?: Coalescing): boolean {
    if (this.finished) return false;
    return this.stream().send(json, undefined, coalescing);
  }

  /** The SSE stream of this answer, created (and the response sent) on first use. */
  stream(): SseStream {
    if (!this.#sse) {
      const settings = this.#settings;
      this.#sse = new SseStream(this, settings.keepAliveMs, settings.maxQueuedBytes);
      settings.counters.openStreams++;
      this.resolve(new Response(this.#sse.readable, { status: 200, headers: SSE_HEADERS }));
      // Asked for after the abort (the method went on past it, e.g. a listen whose client left
      // while it awaited): it ends at once, its keep-alive timer with it.
      if (this.aborted) this.#sse.close();
    }
    return this.#sse;
  }

  override dispose(): void {
    super.dispose();
    const sse = this.#sse;
    if (sse) {
      this.#settings.counters.openStreams--;
      this.#settings.counters.dropped += sse.dropped;
    }
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
