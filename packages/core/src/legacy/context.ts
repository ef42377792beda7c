import type { AuthInfo } from '../auth/auth-info.ts';
import { ClientCapabilityError, McpError } from '../errors.ts';
import { ErrorCode, type LogLevel, RELATED_TASK_META } from '../protocol/constants.ts';
import { type JsonObject, notificationMessage } from '../protocol/jsonrpc.ts';
import { type RequestContext, requiredCapability, type SessionHandle } from '../server/context.ts';
import { ContextBase } from '../server/context-base.ts';
import type { ClientCapabilities, Implementation, InputRequest } from '../server/types.ts';
import type { Session, SessionInit } from '../sessions/session.ts';
import type { LegacyEndpoint } from './endpoint.ts';
import type { LegacyExchange } from './exchange.ts';

/** What a request without a session knows of its client: nothing. */
const NO_SESSION: Pick<SessionInit, 'clientInfo' | 'clientCapabilities'> = Object.freeze({
  clientInfo: undefined,
  clientCapabilities: Object.freeze({}),
});

/**
 * `RequestContext` of a legacy request: capabilities, version and log level come from the
 * session; input requests are real server→client requests on the request's SSE stream, answered
 * by the client's POSTed responses.
 */
export class LegacyContext
  extends ContextBase<LegacyExchange, LegacyEndpoint>
  implements RequestContext
{
  readonly protocolVersion: string;
  readonly #init: Pick<SessionInit, 'clientInfo' | 'clientCapabilities'>;

  constructor(
    endpoint: LegacyEndpoint,
    exchange: LegacyExchange,
    meta: JsonObject,
    protocolVersion: string,
    auth: AuthInfo | undefined,
  ) {
    super(endpoint, exchange, meta, auth);
    this.protocolVersion = protocolVersion;
    this.#init = exchange.session ?? NO_SESSION;
  }

  get clientInfo(): Implementation | undefined {
    return this.#init.clientInfo;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#init.clientCapabilities;
  }
  get session(): SessionHandle | undefined {
    return this.exchange.session;
  }

  protected get logLevel(): LogLevel | undefined {
    return this.exchange.session?.logLevel;
  }

  /**
   * A 2025-11-25 task keeps its call's progress token until it ends: its progress goes to the
   * session's GET stream (its request's stream is closed by then), tagged with the task. Where
   * the stream is held by another instance, or none is open, it is dropped, as progress may be.
   */
  override taskProgress(taskId: string, progress: number, total?: number, message?: string): void {
    const stream = this.exchange.session?.standalone;
    if (!stream) return;
    const params = this.progressParams(progress, total, message);
    if (!params) return;
    params._meta = { [RELATED_TASK_META]: { taskId } };
    stream.send(notificationMessage('notifications/progress', params));
  }
  /** Until the client sets a level with logging/setLevel, every message goes out. */
  protected get logsWithoutLevel(): boolean {
    return true;
  }

  async input<K extends string>(requests: Record<K, InputRequest>): Promise<Record<K, JsonObject>> {
    const keys = Object.keys(requests) as K[];
    for (const key of keys) {
      const needed = requiredCapability(requests[key], this.clientCapabilities);
      if (needed)
        throw new ClientCapabilityError(`The client does not support ${Object.keys(needed)[0]}`);
    }
    const answers = await Promise.all(keys.map((key) => this.ask(requests[key])));
    const result = {} as Record<K, JsonObject>;
    keys.forEach((key, i) => {
      result[key] = answers[i] as JsonObject;
    });
    return result;
  }

  elicit(params: JsonObject): Promise<JsonObject> {
    return this.ask({ method: 'elicitation/create', params });
  }
  sample(params: JsonObject): Promise<JsonObject> {
    return this.ask({ method: 'sampling/createMessage', params });
  }
  listRoots(): Promise<JsonObject> {
    return this.ask({ method: 'roots/list' });
  }

  /**
   * A server→client request on this request's stream, answered by the client's POSTed response;
   * `meta` goes into its `params._meta` (the related-task key of a 2025-11-25 task's inputs).
   */
  ask(request: InputRequest, meta?: JsonObject): Promise<JsonObject> {
    const session = this.exchange.session;
    const refused = this.#cannotAsk(request, session);
    if (refused || !session) return Promise.reject(refused);
    const exchange = this.exchange;
    const id = session.nextRequestId();
    return new Promise<JsonObject>((resolve, reject) => {
      if (exchange.signal.aborted) return reject(exchange.signal.reason);
      // However it ends (answer, abort, no stream, the handler finishing first), the entry and
      // the abort listener go with it.
      const release = () => {
        exchange.signal.removeEventListener('abort', onAbort);
        session.pending.delete(id);
      };
      const onAbort = () => {
        release();
        reject(exchange.signal.reason);
      };
      exchange.signal.addEventListener('abort', onAbort, { once: true });
      session.pending.set(id, {
        release,
        resolve: (result) => {
          release();
          resolve(result);
        },
        reject: (error) => {
          release();
          reject(error);
        },
      });
      exchange.asked(id);
      const sent = exchange.notify(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: request.method,
          params:
            meta === undefined
              ? (request.params ?? {})
              : { ...request.params, _meta: { ...(request.params?._meta as JsonObject), ...meta } },
        }),
      );
      if (!sent)
        session.pending
          .get(id)
          ?.reject(new ClientCapabilityError('The request has no open stream'));
    });
  }

  /** Why this request cannot be sent to the client, if it cannot. */
  #cannotAsk(request: InputRequest, session: Session | undefined): Error | undefined {
    const needed = requiredCapability(request, this.clientCapabilities);
    if (needed)
      return new ClientCapabilityError(`The client does not support ${Object.keys(needed)[0]}`);
    if (!session) return new ClientCapabilityError('Asking the client needs a session');
    const max = this.endpoint.limits.maxPendingPerSession;
    if (session.pending.size < max) return undefined;
    return new McpError(
      ErrorCode.InternalError,
      `The session has ${max} requests to the client waiting for an answer already`,
    );
  }
}
