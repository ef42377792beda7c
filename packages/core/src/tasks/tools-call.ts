import { McpError } from '../errors.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { callTool } from '../server/call-tool.ts';
import type { Endpoint } from '../server/endpoint.ts';
import { findTool } from '../server/features.ts';
import type { MethodContext, MethodSpec } from '../server/methods.ts';
import type { ToolEntry } from '../server/registry.ts';
import { requireScopes } from '../server/resource-server.ts';
import { TaskEngine } from './engine.ts';
import type { TaskRecord } from './store.ts';
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
  const scope = engine.scope();
  const task = new TaskContext(ctx, engine, scope, {
    binding: TaskEngine.binding(ctx.auth, ctx.session?.id, ctx.client),
    tool: tool.name,
    ttlMs: era.ttlMs(engine, params),
    sessionId: ctx.session?.id,
    allowed: true,
  });
  const created = new Promise<JsonObject>((resolve) => {
    task.onCreated = (record) => resolve(era.created(record));
  });
  if (
    tool.taskStart !== 'manual' &&
    (await task.detach()) === undefined &&
    tool.taskSupport === 'required'
  )
    throw new McpError(ErrorCode.ServerError, 'Too many unfinished tasks; try again later', {
      status: 429,
    });
  const work = Promise.resolve().then(() => callTool(tool, params, task));
  work.then(
    (result) => settle(engine, task, { result }),
    (error: unknown) => settle(engine, task, { error }),
  );
  return Promise.race([created, work.then((result) => (task.detached ? created : result))]);
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
