import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, emptyReply, errorResponse, JSON_HEADERS, Reply } from '../http/responses.ts';
import type { AbortReasonType, RequestAbortedError } from '../lifecycle/abort-reason.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { SSE_HEADERS } from '../sse/stream.ts';
import type { Session } from './session.ts';
import { LegacyStream, type StreamConfig } from './stream.ts';

/** The legacy disconnect policy; see `McpHandlerOptions.legacyDisconnect`. */
export interface LegacyConfig extends StreamConfig {
  /** How long a handler whose resumable stream dropped keeps running, waiting for a resume. */
  graceMs: number;
  /** See `McpHandlerOptions.streamAfterMs`. */
  streamAfterMs: number | undefined;
}

function graceExpired(exchange: LegacyExchange): void {
  exchange.abort('disconnect');
}

function streamEarly(exchange: LegacyExchange): void {
  exchange.streamEarly();
}

/**
 * One legacy request. Answers JSON, or an SSE stream once the handler sends a notification or a
 * server→client request first. The disconnect policy lives here:
 * - a dropped connection whose stream cannot be resumed (no EventStore, or the client holds no
 *   event id of it) aborts the handler at once with `disconnect`;
 * - a resumable one leaves the handler running for `graceMs`, its output stored for replay; a
 *   resume (GET + Last-Event-ID) within the window re-attaches, otherwise it is aborted;
 * - `notifications/cancelled` always aborts at once (`client-cancel`).
 */
export class LegacyExchange extends Scope {
  readonly id: RequestId;
  readonly method: string;
  readonly session: Session | undefined;
  readonly started: number = performance.now();
  name: string | undefined;
  errorCode: number | undefined;
  readonly response: Promise<Answer>;
  #resolve!: (response: Answer) => void;
  #stream: LegacyStream | undefined;
  #finished = false;
  #grace: ReturnType<typeof setTimeout> | undefined;
  readonly #config: LegacyConfig;
  #signal: AbortSignal | undefined;
  #request: IncomingRequest | undefined;
  #early: ReturnType<typeof setTimeout> | undefined;
  /** Ids of server→client requests this handler sent (rare: created on the first). */
  #asks: RequestId[] | undefined;

  constructor(
    parent: Scope,
    session: Session | undefined,
    id: RequestId,
    method: string,
    config: LegacyConfig,
  ) {
    super(parent);
    this.session = session;
    this.id = id;
    this.method = method;
    this.#config = config;
    this.response = new Promise<Answer>((resolve) => {
      this.#resolve = resolve;
    });
    if (session) {
      session.enter();
      session.requests.set(id, this);
    }
    if (this.aborted) this.#settleAborted(this.reason ?? 'shutdown');
    else if (session && config.streamAfterMs !== undefined)
      this.#early = setTimeout(streamEarly, config.streamAfterMs, this);
  }

  /** Switches a still-running answer to SSE (see `streamAfterMs`). */
  streamEarly(): void {
    this.#early = undefined;
    if (!this.finished && !this.#stream) this.stream()?.comment();
  }

  get finished(): boolean {
    return this.#finished || this.aborted;
  }

  /** Watches the HTTP exchange: a drop goes through the policy, not straight to abort. */
  watch(request: IncomingRequest): void {
    this.#request = request;
    if (request.watch) {
      request.watch(this);
      return;
    }
    const signal = request.signal;
    if (signal.aborted) {
      this.handleEvent();
      return;
    }
    this.#signal = signal;
    signal.addEventListener('abort', this);
  }

  /** `request.signal` aborted: the client's connection for this request is gone. */
  override handleEvent(): void {
    if (this.#stream) this.#stream.handleEvent();
    else this.abort('disconnect');
  }

  /** The stream of this answer, opened (and the response sent) on first use. */
  stream(): LegacyStream | undefined {
    if (this.#stream) return this.#stream;
    if (!this.session) {
      return undefined;
    }
    const stream = new LegacyStream(this.session, this.session.nextStreamId(), this.#config, this);
    this.#stream = stream;
    this.session.streams.set(stream.id, stream);
    const request = this.#request;
    // The stream watches the connection from now on.
    this.#unwatch();
    this.#resolve(stream.connect(request?.signal));
    return stream;
  }

  /** Sends a notification or request related to this request (on its SSE stream). */
  notify(json: string): boolean {
    if (this.finished) return false;
    const stream = this.stream();
    if (!stream) return false;
    stream.send(json);
    return true;
  }

  reply(json: string, status = 200): void {
    if (this.finished) return;
    this.#finished = true;
    if (this.#stream) this.#stream.finish(json);
    else this.#resolve(new Reply(status, json, JSON_HEADERS));
  }

  /** Called by the stream when its connection dropped before the final message. */
  streamDropped(stream: LegacyStream): void {
    if (this.finished) return;
    if (!stream.resumable || this.#config.graceMs <= 0) {
      this.abort('disconnect');
      return;
    }
    this.#grace ??= setTimeout(graceExpired, this.#config.graceMs, this);
    (this.#grace as { unref?: () => void }).unref?.();
  }

  /** A resume re-attached the stream within the grace window. */
  resumed(): void {
    if (this.#grace !== undefined) clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  override abort(type: AbortReasonType, error?: RequestAbortedError): void {
    if (this.aborted) return;
    super.abort(type, error);
    this.resumed();
    if (!this.#finished) this.#settleAborted(type);
  }

  /** Records a server→client request of this handler, released at the latest by `dispose()`. */
  asked(id: RequestId): void {
    this.#asks ??= [];
    this.#asks.push(id);
  }

  /** Leaves the tree and the session's books; called once the handler settled. */
  override dispose(): void {
    super.dispose();
    if (this.#early !== undefined) clearTimeout(this.#early);
    this.#early = undefined;
    this.#unwatch();
    this.resumed();
    const session = this.session;
    if (session) {
      // A question the handler stopped waiting for (it returned first): nobody awaits the answer
      // any more, so it is forgotten, not settled (a rejection nobody handles would crash Node).
      for (const id of this.#asks ?? []) session.pending.get(id)?.release();
      if (session.requests.get(this.id) === this) session.requests.delete(this.id);
      if (this.#stream && session.streams.get(this.#stream.id) === this.#stream)
        session.streams.delete(this.#stream.id);
      session.leave();
    }
  }

  #unwatch(): void {
    this.#signal?.removeEventListener('abort', this);
    this.#signal = undefined;
    this.#request?.watch?.(undefined);
    this.#request = undefined;
  }

  #settleAborted(type: AbortReasonType): void {
    this.#finished = true;
    if (this.#stream) {
      this.#stream.end();
      return;
    }
    switch (type) {
      case 'disconnect':
        this.#resolve(emptyReply(499));
        break;
      case 'client-cancel':
        // The client asked for no answer; an SSE stream that ends at once is a well-formed "nothing".
        this.#resolve(new Response('', { status: 200, headers: SSE_HEADERS }));
        break;
      case 'session-deleted':
      case 'session-expired':
        this.#resolve(errorResponse(404, -32001, 'Session not found', this.id));
        break;
      case 'shutdown':
        this.#resolve(errorResponse(503, -32603, 'The server is shutting down', this.id));
        break;
    }
  }
}
