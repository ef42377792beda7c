/**
 * A task's call as the store keeps it, and the context a run that starts from the store gives
 * the tool: what lets a runner other than the one that accepted the call (a worker, an instance
 * that took over a lost task) run it as the request would have.
 *
 * @module
 */
import type { AuthInfo } from '../auth/auth-info.ts';
import { DEFAULTS } from '../defaults.ts';
import type { RequestHeaders, RequestInfo } from '../http/request-view.ts';
import type { LogLevel } from '../protocol/constants.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { SessionHandle } from '../server/context.ts';
import type { Endpoint } from '../server/endpoint.ts';
import type { MethodContext } from '../server/methods.ts';
import type { ClientCapabilities, Implementation, InputRequest } from '../server/types.ts';
import type { StoredCall, TaskRecord } from './store.ts';

/** What the store keeps of a call that became a task (never a token: the verified principal). */
export function storedCall(ctx: MethodContext, params: JsonObject): StoredCall {
  return {
    arguments: (params.arguments as JsonObject | undefined) ?? {},
    protocolVersion: ctx.protocolVersion,
    clientInfo: ctx.clientInfo,
    clientCapabilities: ctx.clientCapabilities,
    auth: ctx.auth,
    client: ctx.client,
    url: ctx.request.url,
  };
}

/**
 * Whether a runner may start task `record` again: its tool allows another run, or it waits for
 * input or for its runner to go on with the answers (a run that begins again stops at the same
 * `input()`; answered ones resolve at once) and has had fewer than `maxInputAttempts` runs.
 * Never without its stored call.
 */
export function mayRunAgain(
  record: TaskRecord,
  maxInputAttempts: number = DEFAULTS.tasks.maxInputAttempts,
): boolean {
  if (record.call === undefined) return false;
  const attempts = record.attempts ?? 1;
  if (attempts < (record.maxAttempts ?? 1)) return true;
  const waiting = record.status === 'input_required' || record.answered === true;
  return waiting && attempts < maxInputAttempts;
}

const NO_HEADERS: RequestHeaders = { get: () => null, has: () => false };

/**
 * The request side of a run that started from the store. There is no request: the task's
 * context (`TaskContext`, attached to the task from the start) carries the signal, input and
 * status; progress and logs have no request stream to go to and are dropped, and `ctx.session`
 * is unset (the session, if any, lives elsewhere).
 */
export class StoredCallContext implements MethodContext {
  readonly endpoint: Endpoint;
  readonly requestId: RequestId;
  readonly #call: StoredCall;
  #request: RequestInfo | undefined;
  /**
   * The request side's signal, which nothing aborts. One per run, made on first use: workerd
   * refuses an `AbortController` made at a script's top level, and one shared by the Durable
   * Objects of an isolate is I/O of another object to all but the first.
   */
  #never: AbortController | undefined;

  constructor(endpoint: Endpoint, record: TaskRecord, call: StoredCall) {
    this.endpoint = endpoint;
    this.requestId = `task:${record.id}`;
    this.#call = call;
  }

  /** Never aborts: the task's own scope is the signal its handler sees. */
  get signal(): AbortSignal {
    this.#never ??= new AbortController();
    return this.#never.signal;
  }
  get method(): string {
    return 'tools/call';
  }
  get protocolVersion(): string {
    return this.#call.protocolVersion;
  }
  get clientInfo(): Implementation | undefined {
    return this.#call.clientInfo;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#call.clientCapabilities;
  }
  get meta(): JsonObject {
    return {};
  }
  get client(): string | undefined {
    return this.#call.client;
  }
  get auth(): AuthInfo | undefined {
    return this.#call.auth;
  }
  get request(): RequestInfo {
    this.#request ??= {
      method: 'POST',
      url: this.#call.url,
      headers: NO_HEADERS,
      clientAddress: undefined,
    };
    return this.#request;
  }
  get session(): SessionHandle | undefined {
    return undefined;
  }
  get task(): undefined {
    return undefined;
  }
  noteFailure(): void {}
  progress(): void {}
  log(_level: LogLevel, _data: unknown): void {}
  detach(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  input<K extends string>(_requests: Record<K, InputRequest>): Promise<Record<K, JsonObject>> {
    return Promise.reject(new Error('A stored call asks through its task'));
  }
  elicit(): Promise<JsonObject> {
    return this.input({});
  }
  sample(): Promise<JsonObject> {
    return this.input({});
  }
  listRoots(): Promise<JsonObject> {
    return this.input({});
  }
}
