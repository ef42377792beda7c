import { ExchangeBase } from '../http/exchange-base.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, errorResponse } from '../http/responses.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { Session } from '../sessions/session.ts';
import { type Coalescing, SSE_HEADERS } from '../sse/stream.ts';
import { LegacyStream, type StreamConfig } from './stream.ts';

/** The legacy disconnect policy (`McpHandlerOptions.disconnectGraceMs`). */
export interface LegacyConfig extends StreamConfig {
  /** How long a handler whose resumable stream dropped keeps running, waiting for a resume. */
  readonly graceMs: number;
}

function graceExpired(exchange: LegacyExchange): void {
  exchange.abort('disconnect');
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
export class LegacyExchange extends ExchangeBase {
  readonly session: Session | undefined;
  #stream: LegacyStream | undefined;
  #grace: ReturnType<typeof setTimeout> | undefined;
  readonly #config: LegacyConfig;
  /** The HTTP exchange, until a stream takes over watching its connection. */
  #request: IncomingRequest | undefined;
  /** Ids of server→client requests this handler sent (rare: created on the first). */
  #asks: RequestId[] | undefined;

  constructor(
    parent: Scope,
    session: Session | undefined,
    id: RequestId,
    method: string,
    config: LegacyConfig,
  ) {
    super(parent, id, method);
    this.session = session;
    this.#config = config;
    if (session) {
      session.enter();
      session.requests.set(id, this);
    }
    this.begin(session ? config.streams.streamAfterMs : undefined);
  }

  /** Follows the HTTP exchange until the answer becomes a stream, which then follows it. */
  override followRequest(request: IncomingRequest): void {
    this.#request = request;
    super.followRequest(request);
  }

  /** The stream of this answer, opened (and the response sent) on first use. */
  stream(): LegacyStream | undefined {
    if (this.#stream) return this.#stream;
    if (!this.session) return undefined;
    const stream = new LegacyStream(this.session, this.session.nextStreamId(), this.#config, this);
    this.#stream = stream;
    this.session.streams.set(stream.id, stream);
    const request = this.#request;
    // The stream watches the connection from now on: a drop goes through the policy below.
    this.unfollow();
    this.#request = undefined;
    this.resolve(stream.connect(request?.signal));
    return stream;
  }

  /** Sends a notification or request related to this request (on its SSE stream). */
  notify(json: string, coalescing?: Coalescing): boolean {
    if (this.finished) return false;
    const stream = this.stream();
    if (!stream) return false;
    stream.send(json, coalescing);
    return true;
  }

  /**
   * Called by the stream when its connection dropped before the final message (the client left,
   * or stopped reading and was cut): resumable streams get the grace window.
   */
  streamDropped(resumable: boolean, why: AbortReasonType): void {
    if (this.finished) return;
    if (!resumable || this.#config.graceMs <= 0) {
      this.abort(why);
      return;
    }
    this.#grace ??= unrefTimer(setTimeout(graceExpired, this.#config.graceMs, this));
  }

  /** A resume re-attached the stream within the grace window. */
  resumed(): void {
    if (this.#grace !== undefined) clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  protected override onAbort(type: AbortReasonType): void {
    super.onAbort(type);
    this.resumed();
  }

  /** Records a server→client request of this handler, released at the latest by `dispose()`. */
  asked(id: RequestId): void {
    this.#asks ??= [];
    this.#asks.push(id);
  }

  /** Leaves the tree and the session's books; called once the handler settled. */
  override dispose(): void {
    super.dispose();
    this.#request = undefined;
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

  protected get streaming(): boolean {
    return this.#stream !== undefined;
  }

  /** A change of the session being stored (a cluster manager): the answer goes out after it. */
  protected override get writes(): Promise<void> | undefined {
    return this.session?.writes;
  }

  protected openEarly(): void {
    this.stream()?.comment();
  }

  protected finishStream(json: string): void {
    this.#stream?.finish(json);
  }

  protected endStream(): void {
    this.#stream?.end();
  }

  protected override answerAfterAbort(type: AbortReasonType): Answer {
    switch (type) {
      case 'client-cancel':
        // The client asked for no answer; an SSE stream that ends at once is a well-formed "nothing".
        return new Response('', { status: 200, headers: SSE_HEADERS });
      case 'session-deleted':
      case 'session-expired':
        return errorResponse(404, ErrorCode.SessionNotFound, 'Session not found', this.id);
      default:
        return super.answerAfterAbort(type);
    }
  }
}
