import { invalidParams, McpError, methodNotFound } from '../errors.ts';
import { ErrorCode, TASKS_EXTENSION } from '../protocol/constants.ts';
import { isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import type { MethodSpec } from '../server/methods.ts';
import { TaskEngine } from '../tasks/engine.ts';
import type { TaskRecord } from '../tasks/store.ts';
import type { TaskEra } from '../tasks/tools-call.ts';
import type { ModernContext } from './context.ts';

/** Whether the request declared the tasks extension (per request, in its `_meta` capabilities). */
export function declaresTasks(ctx: { readonly clientCapabilities: JsonObject }): boolean {
  const extensions = ctx.clientCapabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 (HTTP 400): what was asked for needs the tasks extension declared in the request. */
export function missingTasksExtension(what: string): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `${what}: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`,
    { status: 400, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
  );
}

/** A task as 2026-07-28 shows it: flat, ISO dates, `ttlMs`/`pollIntervalMs`. */
function task(record: TaskRecord): JsonObject {
  const shown: JsonObject = {
    taskId: record.id,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) shown.statusMessage = record.statusMessage;
  return shown;
}

/** `tasks/get`'s DetailedTask: the task and what its status carries. */
export function detailedTask(record: TaskRecord): JsonObject {
  const shown = task(record);
  if (record.status === 'input_required' && record.inputRequests) {
    const requests: JsonObject = {};
    for (const [key, request] of Object.entries(record.inputRequests))
      requests[key] =
        request.params === undefined
          ? { method: request.method }
          : { method: request.method, params: request.params };
    shown.inputRequests = requests;
  } else if (record.status === 'completed' && record.result)
    // Exactly what the call would have answered, which in 2026-07-28 carries its resultType.
    shown.result = { ...record.result, resultType: 'complete' };
  else if (record.status === 'failed' && record.error) shown.error = record.error;
  return shown;
}

/** Tasks as 2026-07-28 asks for and answers them. */
export const MODERN_TASKS: TaskEra = {
  wants: (ctx) => declaresTasks(ctx),
  ttlMs: (engine) => engine.ttlMs,
  created: (record) => ({ resultType: 'task', ...task(record) }),
  required: (tool) => missingTasksExtension(`Tool ${tool.name} runs only as a task`),
};

/** The engine and the caller's binding for a `tasks/*` request, or the error that refuses it. */
function taskRequest(
  ctx: ModernContext,
  params: JsonObject,
): { engine: TaskEngine; binding: string; id: string } {
  const engine = ctx.endpoint.tasks;
  if (!engine || !ctx.endpoint.registry.tasks) throw methodNotFound(ctx.method);
  if (!declaresTasks(ctx)) throw missingTasksExtension(ctx.method);
  if (typeof params.taskId !== 'string') throw invalidParams(`${ctx.method} needs params.taskId`);
  return {
    engine,
    binding: TaskEngine.binding(ctx.auth, undefined, ctx.client),
    id: params.taskId,
  };
}

function notFound(): McpError {
  return invalidParams('Failed to retrieve task: Task not found');
}

/** `tasks/get`, `tasks/update`, `tasks/cancel` of 2026-07-28. */
export const MODERN_TASK_METHODS: Readonly<Record<string, MethodSpec<ModernContext>>> = {
  'tasks/get': {
    run: async (ctx, params) => {
      const { engine, binding, id } = taskRequest(ctx, params);
      const record = await engine.get(binding, id);
      if (!record) throw notFound();
      return detailedTask(record);
    },
  },
  'tasks/update': {
    run: async (ctx, params) => {
      const { engine, binding, id } = taskRequest(ctx, params);
      const responses = params.inputResponses;
      if (!isObject(responses) || !Object.values(responses).every(isObject))
        throw invalidParams('inputResponses must be an object of result objects');
      if (!(await engine.answer(binding, id, responses))) throw notFound();
      return {};
    },
  },
  'tasks/cancel': {
    run: async (ctx, params) => {
      const { engine, binding, id } = taskRequest(ctx, params);
      if (!(await engine.cancel(binding, id))) throw notFound();
      return {};
    },
  },
};
