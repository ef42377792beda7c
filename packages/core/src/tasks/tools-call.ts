import { McpError } from '../errors.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { callTool } from '../server/call-tool.ts';
import type { Endpoint } from '../server/endpoint.ts';
import { findTool } from '../server/features.ts';
import type { MethodContext, MethodSpec } from '../server/methods.ts';
import type { ToolEntry } from '../server/registry.ts';
import { requireScopes } from '../server/resource-server.ts';
import { TaskEngine } from './engine.ts';
import type { StoredCall, TaskRecord } from './store.ts';
import { StoredCallContext, storedCall } from './stored-call.ts';
import { TaskContext } from './task-context.ts';

/** An endpoint that runs tasks (when a tool allows them). */
export interface TaskEndpoint extends Endpoint {
  readonly tasks: TaskEngine | undefined;
}

/** A context whose endpoint may run tasks. */
export interface TaskMethodContext extends MethodContext {
  readonly endpoint: TaskEndpoint;
}

/** How an era asks for a task and is told about one. */
export interface TaskEra {
  /** Whether this request may become a task (the client asked for one, as its era does). */
  wants(ctx: TaskMethodContext, params: JsonObject): boolean;
  /** The TTL of a task this request creates. */
  ttlMs(engine: TaskEngine, params: JsonObject): number;
  /** The answer that tells the client about its task (the era's CreateTaskResult). */
  created(record: TaskRecord): JsonObject;
  /**
   * The error of a call to a `required` tool that did not ask for a task; `undefined` runs it as
   * a plain call (a revision that has no way to ask for one).
   */
  required(tool: ToolEntry, ctx: TaskMethodContext): McpError | undefined;
  /** The error of a call to a `forbidden` tool that asked for one, if the era has one. */
  forbidden?(ctx: TaskMethodContext, params: JsonObject): McpError | undefined;
}

/** `tools/call`, task-aware: the shared method, with a tool's `taskSupport` honoured. */
export function taskToolsCall(era: TaskEra): MethodSpec<TaskMethodContext> {
  return {
    run: (ctx, params) => {
      const tool = findTool(ctx.endpoint.registry, params, ctx.auth);
      requireScopes(ctx.auth, tool.scopes);
      const engine = ctx.endpoint.tasks;
      const support = tool.taskSupport;
      if (support === undefined || engine === undefined) {
        const refused = era.forbidden?.(ctx, params);
        if (refused) throw refused;
        return callTool(tool, params, ctx);
      }
      if (!era.wants(ctx, params)) {
        const refused = support === 'required' ? era.required(tool, ctx) : undefined;
        if (refused) throw refused;
        return callTool(tool, params, ctx);
      }
      return runAsTask(engine, tool, params, ctx, era);
    },
  };
}

/**
 * A call that may become a task. With `taskStart: 'immediate'` (the default) the task is created
 * before the handler runs; with `'manual'` the handler decides (`ctx.detach()`) and may first ask
 * for input the request's own way (MRTR). The request is answered with the task once it exists,
 * or with the handler's result if it never becomes one.
 */
async function runAsTask(
  engine: TaskEngine,
  tool: ToolEntry,
  params: JsonObject,
  ctx: TaskMethodContext,
  era: TaskEra,
): Promise<JsonObject> {
  const plan = {
    binding: TaskEngine.binding(ctx.auth, ctx.session?.id, ctx.client),
    tool: tool.name,
    ttlMs: era.ttlMs(engine, params),
    sessionId: ctx.session?.id,
    allowed: true,
    maxAttempts: tool.maxAttempts,
    call: storedCall(ctx, params),
  };
  if (!engine.runs) {
    // Workers run it: queued, and answered with the task at once.
    const queued = await engine.create(undefined, plan);
    if (queued) return era.created(queued);
    if (tool.taskSupport === 'required') throw tooManyTasks();
    return callTool(tool, params, ctx);
  }
  const scope = engine.scope();
  const task = new TaskContext(ctx, engine, scope, plan);
  const created = new Promise<JsonObject>((resolve) => {
    task.onCreated = (record) => resolve(era.created(record));
  });
  if (
    tool.taskStart !== 'manual' &&
    (await task.detach()) === undefined &&
    tool.taskSupport === 'required'
  )
    throw tooManyTasks();
  const work = Promise.resolve().then(() => callTool(tool, params, task));
  work.then(
    (result) => settle(engine, task, { result }),
    (error: unknown) => settle(engine, task, { error }),
  );
  return Promise.race([created, work.then((result) => (task.detached ? created : result))]);
}

function tooManyTasks(): McpError {
  return new McpError(ErrorCode.ServerError, 'Too many unfinished tasks; try again later', {
    status: 429,
  });
}

/**
 * Runs a task this engine claimed from the store (queued for a worker, or lost by its runner):
 * its tool again, from the start, with the call as stored, in a context attached to the task
 * from the start. A tool that is gone or may not be seen by the caller any more fails the task.
 */
export function runStoredTask(endpoint: TaskEndpoint, record: TaskRecord, scope: Scope): void {
  const engine = endpoint.tasks as TaskEngine;
  const call = record.call as StoredCall;
  const params: JsonObject = { name: record.tool, arguments: call.arguments };
  const inner = new StoredCallContext(endpoint, record, call);
  const task = new TaskContext(inner, engine, scope, {
    binding: record.binding,
    tool: record.tool,
    ttlMs: record.ttlMs,
    sessionId: record.sessionId,
    allowed: true,
    maxAttempts: record.maxAttempts ?? 1,
    call,
  });
  task.adopt(record);
  const work = Promise.resolve().then(() => {
    const tool = findTool(endpoint.registry, params, call.auth);
    requireScopes(call.auth, tool.scopes);
    return callTool(tool, params, task);
  });
  work.then(
    (result) => settle(engine, task, { result }),
    (error: unknown) => settle(engine, task, { error }),
  );
}

function settle(
  engine: TaskEngine,
  task: TaskContext,
  outcome: { result: JsonObject } | { error: unknown },
): void {
  const record = task.record;
  if (record) void engine.settle(record.id, outcome);
  else task.release();
}
