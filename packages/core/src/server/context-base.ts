import type { AuthInfo } from '../auth/auth-info.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type RequestInfo, RequestView } from '../http/request-view.ts';
import { LOG_LEVELS, type LogLevel } from '../protocol/constants.ts';
import { type JsonObject, notificationMessage, type RequestId } from '../protocol/jsonrpc.ts';
import type { Coalescing } from '../sse/stream.ts';
import type { Endpoint } from './endpoint.ts';

/** What a context needs of its exchange (either era's). */
interface ContextExchange {
  readonly signal: AbortSignal;
  readonly id: RequestId;
  readonly method: string;
  /** Who the request counts against (its principal, else its client address). */
  readonly client: string | undefined;
  /** The HTTP request that carried it. */
  readonly incoming: IncomingRequest | undefined;
  /** An internal failure the client was told of only in general terms, for the log. */
  failure: unknown;
  /**
   * Sends a notification of this request; false when nothing can be sent any more. Progress and
   * logs may be coalesced for a client that reads slowly.
   */
  notify(json: string, coalescing?: Coalescing): boolean;
}

/**
 * What both eras' contexts share: the request's identity, and its progress and log
 * notifications (progress only forward, logs filtered by the era's level).
 */
export abstract class ContextBase<E extends ContextExchange, P extends Endpoint = Endpoint> {
  /** The endpoint serving the request (methods read the registry and options from it). */
  readonly endpoint: P;
  readonly exchange: E;
  readonly meta: JsonObject;
  readonly auth: AuthInfo | undefined;
  #lastProgress = Number.NEGATIVE_INFINITY;
  #request: RequestInfo | undefined;

  constructor(endpoint: P, exchange: E, meta: JsonObject, auth: AuthInfo | undefined) {
    this.endpoint = endpoint;
    this.exchange = exchange;
    this.meta = meta;
    this.auth = auth;
  }

  get signal(): AbortSignal {
    return this.exchange.signal;
  }
  get requestId(): RequestId {
    return this.exchange.id;
  }
  get method(): string {
    return this.exchange.method;
  }

  get client(): string | undefined {
    return this.exchange.client;
  }

  /** The HTTP request, read-only; built on first read. */
  get request(): RequestInfo {
    this.#request ??= new RequestView(this.exchange.incoming, this.endpoint.trust);
    return this.#request;
  }

  /** A failure the client is told of in general terms: its detail goes to the request log. */
  noteFailure(error: unknown): void {
    this.exchange.failure = error;
  }

  progress(progress: number, total?: number, message?: string): void {
    const params = this.progressParams(progress, total, message);
    if (params)
      this.exchange.notify(notificationMessage('notifications/progress', params), 'progress');
  }

  /**
   * A `notifications/progress` body with the request's token, or `undefined` when the request
   * asked for none or `progress` does not move forward (it must only increase).
   */
  protected progressParams(
    progress: number,
    total?: number,
    message?: string,
  ): JsonObject | undefined {
    const token = this.meta.progressToken;
    if (token === undefined || progress <= this.#lastProgress) return undefined;
    this.#lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return params;
  }

  /**
   * Progress of the task this call became, once its request is answered: the era's to carry
   * (2025-11-25: the session's GET stream); dropped where the era has no place for it.
   */
  taskProgress(_taskId: string, _progress: number, _total?: number, _message?: string): void {}

  log(level: LogLevel, data: unknown, logger?: string): void {
    const wanted = this.logLevel;
    // undefined: the era's default (legacy: everything until logging/setLevel; modern: nothing).
    if (wanted === undefined ? !this.logsWithoutLevel : !atLeast(level, wanted)) return;
    this.exchange.notify(
      notificationMessage(
        'notifications/message',
        logger === undefined ? { level, data } : { level, logger, data },
      ),
      'log',
    );
  }

  /** Only a task-capable call (a `TaskContext`) can become a task. */
  detach(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  get task(): undefined {
    return undefined;
  }

  /** The minimum level the client asked for, if any. */
  protected abstract get logLevel(): LogLevel | undefined;
  /** Whether messages go out while the client has asked for no level. */
  protected abstract get logsWithoutLevel(): boolean;
}

/** Whether `level` is at or above the `wanted` minimum. */
function atLeast(level: LogLevel, wanted: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(wanted);
}
