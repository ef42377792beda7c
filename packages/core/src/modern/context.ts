import type { AuthInfo } from '../auth/auth-info.ts';
import { McpError } from '../errors.ts';
import { ErrorCode, type LogLevel, META, MODERN_VERSION } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { type RequestContext, requiredCapability } from '../server/context.ts';
import { ContextBase } from '../server/context-base.ts';
import { InputRequired } from '../server/input-required.ts';
import type { ClientCapabilities, Implementation, InputRequest } from '../server/types.ts';
import type { ModernEndpoint } from './endpoint.ts';
import type { ModernExchange } from './exchange.ts';

/** `RequestContext` of a 2026-07-28 request: everything comes from this request's `_meta`. */
export class ModernContext
  extends ContextBase<ModernExchange, ModernEndpoint>
  implements RequestContext
{
  readonly clientCapabilities: ClientCapabilities;
  /** Answers from earlier rounds (verified requestState) and this request's inputResponses. */
  answers: JsonObject | undefined;
  /** Whether this method may end with an input-required result. */
  mayAskInput = false;
  /** Keys of the questions asked in earlier rounds (from the verified requestState). */
  asked: readonly string[] = [];
  #nextKey = 0;

  constructor(
    endpoint: ModernEndpoint,
    exchange: ModernExchange,
    meta: JsonObject,
    auth: AuthInfo | undefined,
  ) {
    super(endpoint, exchange, meta, auth);
    this.clientCapabilities = meta[META.clientCapabilities] as ClientCapabilities;
  }

  get protocolVersion(): string {
    return MODERN_VERSION;
  }
  get clientInfo(): Implementation | undefined {
    return this.meta[META.clientInfo] as Implementation | undefined;
  }

  protected get logLevel(): LogLevel | undefined {
    return this.meta[META.logLevel] as LogLevel | undefined;
  }
  /** No level in `_meta` means no log messages at all for this request (2026-07-28). */
  protected get logsWithoutLevel(): boolean {
    return false;
  }

  async input<K extends string>(requests: Record<K, InputRequest>): Promise<Record<K, JsonObject>> {
    if (!this.mayAskInput) {
      throw new McpError(ErrorCode.InternalError, `${this.method} cannot ask the client for input`);
    }
    const missing: JsonObject = {};
    let complete = true;
    for (const key of Object.keys(requests) as K[]) {
      const request = requests[key];
      const needed = requiredCapability(request, this.clientCapabilities);
      if (needed) {
        throw new McpError(
          ErrorCode.MissingRequiredClientCapability,
          `The client did not declare ${Object.keys(needed)[0]}`,
          {
            data: { requiredCapabilities: needed },
            status: 400,
          },
        );
      }
      if (this.answers?.[key] === undefined) {
        complete = false;
        missing[key] =
          request.params === undefined
            ? { method: request.method }
            : { method: request.method, params: request.params };
      }
    }
    if (!complete) throw new InputRequired(missing);
    return this.answers as Record<K, JsonObject>;
  }

  async elicit(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'elicitation/create', params });
  }

  async sample(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'sampling/createMessage', params });
  }

  async listRoots(key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'roots/list' });
  }

  async #one(key: string | undefined, request: InputRequest): Promise<JsonObject> {
    const k = key ?? `input-${this.#nextKey++}`;
    const answers = await this.input({ [k]: request });
    return answers[k] as JsonObject;
  }
}
