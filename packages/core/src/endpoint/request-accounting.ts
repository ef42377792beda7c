/**
 * Every request a handler runs, counted from the start of its method to its end, and reported
 * (the `onRequest` hook, instrumentation) once it ended.
 *
 * @module
 */
import type { IncomingRequest } from '../http/incoming.ts';
import type { Reply } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { errorMessage, type JsonRpcMessage } from '../protocol/jsonrpc.ts';
import type { ExecutionContext, ReadyCall } from '../server/execute.ts';
import type { Instrumentation, RequestObservation } from './instrumentation.ts';
import type { McpHandlerOptions, RequestEvent } from './options.ts';
import { refusalEvent, requestEvent, requestStart } from './request-event.ts';

export class RequestAccounting {
  /** Requests whose method has not ended (open listen streams included). */
  inFlight = 0;
  /** Called each time the count drops to zero (shutdown waits for it). */
  drained: (() => void) | undefined;
  readonly #onRequest: McpHandlerOptions['onRequest'];
  readonly #instrumentation: Instrumentation | undefined;

  constructor(options: McpHandlerOptions) {
    this.#onRequest = options.onRequest;
    this.#instrumentation = options.instrumentation;
  }

  /**
   * A method that answered synchronously is accounted for and reported before this returns, with
   * no promise made for it; one that waits for something is followed until it settles.
   */
  run(call: ReadyCall): Promise<void> | undefined {
    const { ctx, sessionId } = call;
    const exchange = ctx.exchange;
    this.inFlight++;
    const observed = this.#instrumentation?.request(
      requestStart(exchange, ctx.protocolVersion, sessionId, ctx.meta),
    );
    let pending: Promise<void> | undefined;
    try {
      pending = observed ? observed.run(() => call.run()) : call.run();
    } catch {
      failed(exchange);
    }
    // An answer waiting for a durable change (a cluster manager) is part of the request.
    if (pending === undefined && exchange.replying === undefined) {
      this.#settled(ctx, sessionId, observed);
      return undefined;
    }
    exchange.waiting();
    return this.#runLater(ctx, sessionId, observed, pending);
  }

  async #runLater(
    ctx: ExecutionContext,
    sessionId: string | undefined,
    observed: RequestObservation | undefined,
    pending: Promise<void> | undefined,
  ): Promise<void> {
    const exchange = ctx.exchange;
    try {
      if (pending) await pending;
      if (exchange.replying) await exchange.replying;
    } catch {
      failed(exchange);
    } finally {
      this.#settled(ctx, sessionId, observed);
    }
  }

  #settled(
    ctx: ExecutionContext,
    sessionId: string | undefined,
    observed: RequestObservation | undefined,
  ): void {
    const exchange = ctx.exchange;
    exchange.dispose();
    this.inFlight--;
    if (this.#onRequest || observed)
      this.#report(requestEvent(exchange, ctx.protocolVersion, sessionId), observed);
    if (this.inFlight === 0) this.drained?.();
  }

  /** A request refused before its method ran: one `refused` event, nothing counted in flight. */
  refused(request: IncomingRequest, reply: Reply, message: JsonRpcMessage | undefined): void {
    const instrumentation = this.#instrumentation;
    if (!this.#onRequest && !instrumentation?.refused) return;
    const event = refusalEvent(request, reply, message);
    try {
      instrumentation?.refused?.(event);
    } catch {
      // A broken instrumentation must not break the server.
    }
    try {
      this.#onRequest?.(event);
    } catch {
      // A broken log hook must not break the server.
    }
  }

  #report(event: RequestEvent, observed: RequestObservation | undefined): void {
    try {
      observed?.end(event);
    } catch {
      // A broken instrumentation must not break the server.
    }
    try {
      this.#onRequest?.(event);
    } catch {
      // A broken log hook must not break the server.
    }
  }
}

/** Work that threw unexpectedly is answered -32603 rather than left hanging. */
function failed(exchange: ExecutionContext['exchange']): void {
  exchange.errorCode = ErrorCode.InternalError;
  exchange.reply(
    errorMessage(exchange.id, { code: ErrorCode.InternalError, message: 'Internal error' }),
  );
}
