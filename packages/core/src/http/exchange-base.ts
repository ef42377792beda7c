import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { Scope } from '../lifecycle/scope.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { IncomingRequest } from './incoming.ts';
import { type Answer, emptyReply, JSON_HEADERS, Reply, shuttingDown } from './responses.ts';

function streamEarly(exchange: ExchangeBase): void {
  exchange.streamEarly();
}

/**
 * What the exchanges of both eras share: one JSON-RPC request over one HTTP exchange, a leaf of
 * the cancellation tree that also owns the response. It answers JSON when the handler only
 * returns a result, and the era's stream once something has to go out first; `streamAfterMs`
 * opens that stream for a handler still running after so long.
 *
 * Once aborted, nothing more is written: a disconnect resolves the pending response with an
 * empty 499 nobody reads, a shutdown with a 503 (an era adds its own cases); an open stream ends.
 */
export abstract class ExchangeBase extends Scope {
  readonly id: RequestId;
  readonly method: string;
  readonly started: number = performance.now();
  /** Tool, prompt or resource the request names, for the request log. */
  name: string | undefined;
  /** JSON-RPC error code the request was answered with, if any (for the request log). */
  errorCode: number | undefined;
  /**
   * What failed inside, when the client was told only that something did (a handler's
   * TypeError, a stack overflow): for the request log and the trace, never for the client.
   */
  failure: unknown;
  /**
   * The final message waiting for durable writes to settle (`writes`), set by `reply()`; the
   * handler's `run()` waits for it. Undefined almost always.
   */
  replying: Promise<void> | undefined;
  /** The answer once there; the promise of it is made only for a reader that must wait. */
  #answer: Answer | undefined;
  #response: Promise<Answer> | undefined;
  #resolve: ((answer: Answer) => void) | undefined;
  #finished = false;
  #early: ReturnType<typeof setTimeout> | undefined;
  #streamAfterMs: number | undefined;
  #held: RequestLoad | undefined;

  /** The HTTP request that carried this one (`ctx.request` reads it). */
  incoming: IncomingRequest | undefined;

  constructor(parent: Scope, id: RequestId, method: string) {
    super(parent);
    this.id = id;
    this.method = method;
  }

  override followRequest(request: IncomingRequest): void {
    this.incoming = request;
    super.followRequest(request);
  }

  /** Who the request counts against for quotas: its principal, else its client address. */
  get client(): string | undefined {
    return this.#held?.principal || undefined;
  }

  /** The request's body bytes are held by this exchange too, until it is disposed. */
  hold(held: RequestLoad | undefined): void {
    if (held === undefined) return;
    held.retain();
    this.#held = held;
  }

  /** The answer: JSON, or the Response that carries the stream. */
  get response(): Promise<Answer> {
    if (this.#response === undefined) {
      const answer = this.#answer;
      this.#response =
        answer === undefined
          ? new Promise<Answer>((resolve) => {
              this.#resolve = resolve;
            })
          : Promise.resolve(answer);
    }
    return this.#response;
  }

  /**
   * The answer itself when it is already there (a method that answered synchronously), so the
   * endpoint returns it with no promise and no microtask hop; else the promise of it.
   */
  get ready(): Answer | Promise<Answer> {
    return this.#answer ?? this.response;
  }

  /**
   * Ends a subclass constructor: answers a request born aborted, or keeps `streamAfterMs` for
   * {@link waiting}.
   */
  protected begin(streamAfterMs: number | undefined): void {
    if (this.aborted) this.#settleAborted(this.reason ?? 'shutdown');
    else this.#streamAfterMs = streamAfterMs;
  }

  /**
   * The method goes on after its synchronous part (it returned a promise): `streamAfterMs` starts
   * counting now, and a request followed by its signal is watched from now on. A method that
   * answered at once never needs the timer, so none is made for it.
   */
  waiting(): void {
    // A Web request's signal is followed from now on, too (see `followRequest`).
    this.followPending();
    const ms = this.#streamAfterMs;
    if (ms === undefined || this.#early !== undefined || this.finished) return;
    this.#early = setTimeout(streamEarly, ms, this);
  }

  /** True once the result (or error) went out, or the exchange was aborted. */
  get finished(): boolean {
    return this.#finished || this.aborted;
  }

  /** Whether the answer is the era's stream. */
  protected abstract get streaming(): boolean;
  /** Opens the stream and writes a first comment, so the client gets headers and the runtime a
   * write that fails if the client has gone (workerd learns of it no other way). */
  protected abstract openEarly(): void;
  /** Sends the final message on the open stream and ends it. */
  protected abstract finishStream(json: string): void;
  /** Ends the open stream of an aborted request. */
  protected abstract endStream(type: AbortReasonType): void;

  /** The answer is ready: JSON, or the Response that carries the stream. */
  protected resolve(answer: Answer): void {
    // The first answer wins, as with a promise resolved twice.
    if (this.#answer !== undefined) return;
    this.#answer = answer;
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#resolve = undefined;
    resolve(answer);
  }

  /** `streamAfterMs` elapsed with the handler still running. */
  streamEarly(): void {
    this.#early = undefined;
    if (!this.finished && !this.streaming) this.openEarly();
  }

  /**
   * Durable writes the answer must wait for (a change a cluster manager is storing, so the next
   * request on any instance sees it); `undefined` to answer at once.
   */
  protected get writes(): Promise<void> | undefined {
    return undefined;
  }

  /**
   * Sends the final JSON-RPC message (result or error) and ends the exchange; after the
   * `writes` in flight settle, when there are some.
   */
  reply(json: string, status = 200, headers?: Readonly<Record<string, string>>): void {
    if (this.finished) return;
    this.#finished = true;
    const writes = this.writes;
    if (writes) {
      this.replying = writes.then(() => {
        // Aborted while waiting: answered as any aborted request.
        if (this.aborted) this.#settleAborted(this.reason ?? 'shutdown');
        else this.#send(json, status, headers);
      });
      return;
    }
    this.#send(json, status, headers);
  }

  #send(json: string, status: number, headers: Readonly<Record<string, string>> | undefined): void {
    if (this.streaming) this.finishStream(json);
    else
      this.resolve(
        new Reply(status, json, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS),
      );
  }

  protected override onAbort(type: AbortReasonType): void {
    if (!this.#finished) this.#settleAborted(type);
  }

  override dispose(): void {
    super.dispose();
    if (this.#early !== undefined) clearTimeout(this.#early);
    this.#early = undefined;
    this.#held?.release();
    this.#held = undefined;
  }

  /** The answer to a request aborted before its result: an era may add cases. */
  protected answerAfterAbort(type: AbortReasonType): Answer {
    return type === 'disconnect' ? emptyReply(499) : shuttingDown(this.id);
  }

  #settleAborted(type: AbortReasonType): void {
    this.#finished = true;
    if (this.streaming) this.endStream(type);
    else this.resolve(this.answerAfterAbort(type));
  }
}
