import type { AuthInfo } from '../auth/auth-info.ts';
import { McpError } from '../errors.ts';
import type { RequestInfo } from '../http/request-view.ts';
import { abortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { ErrorCode, type LogLevel } from '../protocol/constants.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import { requiredCapability, type SessionHandle, type TaskHandle } from '../server/context.ts';
import type { Endpoint } from '../server/endpoint.ts';
import type { MethodContext } from '../server/methods.ts';
import type { ClientCapabilities, Implementation, InputRequest } from '../server/types.ts';
import type { TaskEngine } from './engine.ts';
import type { TaskRecord } from './store.ts';
import type { TaskPlan } from './task-options.ts';

/**
 * The context of a task-capable tool call. Until `detach()` it is the request's own context
 * (MRTR rounds, progress, the request's client); its signal is the task's scope, which follows
 * the request until then and the server afterwards. After `detach()`, input requests wait in the
 * task (`input_required`, answered with `tasks/update`), progress goes where the era carries a
 * task's (`taskProgress`: 2025-11-25's GET stream) and logs, which tasks do not carry, are dropped.
 */
export class TaskContext implements MethodContext {
  readonly #inner: MethodContext;
  readonly #engine: TaskEngine;
  readonly #scope: Scope;
  readonly #plan: TaskPlan;
  #record: TaskRecord | undefined;
  #detaching: Promise<string | undefined> | undefined;
  #created: (record: TaskRecord) => void = () => {};
  #nextKey = 0;

  constructor(inner: MethodContext, engine: TaskEngine, scope: Scope, plan: TaskPlan) {
    this.#inner = inner;
    this.#engine = engine;
    this.#scope = scope;
    this.#plan = plan;
    // Until it is a task, the call ends with its request (and for the same reason).
    const signal = inner.signal;
    if (signal.aborted) scope.abort(abortReasonType(signal) ?? 'disconnect');
    else signal.addEventListener('abort', this, { once: true });
  }

  /** The request's signal aborted before the call became a task. */
  handleEvent(): void {
    if (!this.#record) this.#scope.abort(abortReasonType(this.#inner.signal) ?? 'disconnect');
  }

  /** Called with the task once it exists (the request is then answered with it). */
  set onCreated(fn: (record: TaskRecord) => void) {
    this.#created = fn;
  }

  get detached(): boolean {
    return this.#record !== undefined;
  }

  get record(): TaskRecord | undefined {
    return this.#record;
  }

  /** Attaches the context to `record` from the start: a run that began from the store. */
  adopt(record: TaskRecord): void {
    this.#inner.signal.removeEventListener('abort', this);
    this.#record = record;
  }

  /** The call ended without becoming a task: its scope leaves the tree. */
  release(): void {
    this.#inner.signal.removeEventListener('abort', this);
    this.#scope.dispose();
  }

  detach(statusMessage?: string): Promise<string | undefined> {
    if (this.#record) return Promise.resolve(this.#record.id);
    if (!this.#plan.allowed) return Promise.resolve(undefined);
    this.#detaching ??= this.#create(statusMessage);
    return this.#detaching;
  }

  async #create(statusMessage: string | undefined): Promise<string | undefined> {
    const record = await this.#engine.create(this.#scope, this.#plan);
    if (!record) return undefined;
    this.#inner.signal.removeEventListener('abort', this);
    this.#record = statusMessage === undefined ? record : { ...record, statusMessage };
    if (statusMessage !== undefined) this.#engine.status(record.id, statusMessage);
    this.#created(this.#record);
    return record.id;
  }

  get task(): TaskHandle | undefined {
    const record = this.#record;
    if (!record) return undefined;
    const engine = this.#engine;
    return { id: record.id, status: (message) => engine.status(record.id, message) };
  }

  get signal(): AbortSignal {
    return this.#scope.signal;
  }
  get endpoint(): Endpoint {
    return this.#inner.endpoint;
  }
  get requestId(): RequestId {
    return this.#inner.requestId;
  }
  get method(): string {
    return this.#inner.method;
  }
  get protocolVersion(): string {
    return this.#inner.protocolVersion;
  }
  get clientInfo(): Implementation | undefined {
    return this.#inner.clientInfo;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#inner.clientCapabilities;
  }
  get meta(): JsonObject {
    return this.#inner.meta;
  }
  get client(): string | undefined {
    return this.#inner.client;
  }

  /** Logged with the request while the call is one; a task's failure is in its result. */
  noteFailure(error: unknown): void {
    if (!this.#record) this.#inner.noteFailure(error);
  }

  get auth(): AuthInfo | undefined {
    return this.#inner.auth;
  }
  get request(): RequestInfo {
    return this.#inner.request;
  }
  get session(): SessionHandle | undefined {
    return this.#inner.session;
  }

  progress(progress: number, total?: number, message?: string): void {
    const record = this.#record;
    if (!record) this.#inner.progress(progress, total, message);
    // A cancelled task's handler may still report as it winds down: that is after its end.
    else if (!this.#scope.aborted) this.#inner.taskProgress?.(record.id, progress, total, message);
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    if (!this.#record) this.#inner.log(level, data, logger);
  }

  async input<K extends string>(requests: Record<K, InputRequest>): Promise<Record<K, JsonObject>> {
    const record = this.#record;
    if (!record) return this.#inner.input(requests);
    for (const request of Object.values(requests) as InputRequest[]) {
      const needed = requiredCapability(request, this.clientCapabilities);
      if (needed)
        throw new McpError(
          ErrorCode.MissingRequiredClientCapability,
          `The client did not declare ${Object.keys(needed)[0]}`,
          { data: { requiredCapabilities: needed } },
        );
    }
    return (await this.#engine.input(record.id, requests)) as Record<K, JsonObject>;
  }

  elicit(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'elicitation/create', params });
  }
  sample(params: JsonObject, key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'sampling/createMessage', params });
  }
  listRoots(key?: string): Promise<JsonObject> {
    return this.#one(key, { method: 'roots/list' });
  }

  async #one(key: string | undefined, request: InputRequest): Promise<JsonObject> {
    if (!this.#record) {
      // Before detaching, the request's own context numbers the keys as it always does.
      if (request.method === 'elicitation/create')
        return this.#inner.elicit(request.params ?? {}, key);
      if (request.method === 'sampling/createMessage')
        return this.#inner.sample(request.params ?? {}, key);
      return this.#inner.listRoots(key);
    }
    const k = key ?? `input-${this.#nextKey++}`;
    return (await this.input({ [k]: request }))[k] as JsonObject;
  }
}
