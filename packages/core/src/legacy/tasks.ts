import { invalidParams, McpError, methodNotFound } from '../errors.ts';
import { ErrorCode, RELATED_TASK_META, REVISION_RULES } from '../protocol/constants.ts';
import { isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import type { MethodSpec } from '../server/methods.ts';
import { TaskEngine } from '../tasks/engine.ts';
import { isTerminal, type TaskRecord } from '../tasks/store.ts';
import type { TaskEra } from '../tasks/tools-call.ts';
import type { LegacyContext } from './context.ts';

/** The `tasks` server capability of a 2025-11-25 `initialize` result. */
export const TASKS_CAPABILITY: JsonObject = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
};

/** Whether this request's revision has tasks and the server runs some. */
function served(ctx: LegacyContext): boolean {
  return (
    REVISION_RULES.tasks(ctx.protocolVersion) &&
    ctx.endpoint.tasks !== undefined &&
    ctx.endpoint.registry.tasks
  );
}

/**
 * A task as 2025-11-25 shows it: `ttl`/`pollInterval`, and a tool result with `isError` as
 * `failed` (that revision's rule; `tasks/result` still returns the result itself).
 */
export function legacyTask(record: TaskRecord): JsonObject {
  const failedTool = record.status === 'completed' && record.result?.isError === true;
  const shown: JsonObject = {
    taskId: record.id,
    status: failedTool ? 'failed' : record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) shown.statusMessage = record.statusMessage;
  return shown;
}

/** Tasks as a 2025-11-25 session asks for them (`params.task`) and is told about them. */
export const LEGACY_TASKS: TaskEra = {
  wants: (ctx, params) => REVISION_RULES.tasks(ctx.protocolVersion) && isObject(params.task),
  ttlMs: (engine, params) => {
    const asked = (params.task as JsonObject).ttl;
    if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0) return engine.ttlMs;
    return Math.min(Math.ceil(asked), engine.maxTtlMs);
  },
  created: (record) => ({ task: legacyTask(record) }),
  // Older revisions cannot ask for a task: the tool runs as a plain call there.
  required: (tool, ctx) =>
    REVISION_RULES.tasks(ctx.protocolVersion)
      ? new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task`)
      : undefined,
  forbidden: (ctx, params) =>
    REVISION_RULES.tasks(ctx.protocolVersion) && isObject(params.task)
      ? new McpError(ErrorCode.MethodNotFound, `Tool ${String(params.name)} does not run as a task`)
      : undefined,
};

function notFound(): McpError {
  return invalidParams('Failed to retrieve task: Task not found');
}

/** The engine, the caller's binding and the task id of a `tasks/*` request, or its refusal. */
function taskRequest(
  ctx: LegacyContext,
  params: JsonObject,
): { engine: TaskEngine; binding: string; id: string } {
  const engine = ctx.endpoint.tasks;
  if (!engine || !served(ctx)) throw methodNotFound(ctx.method);
  if (typeof params.taskId !== 'string') throw invalidParams(`${ctx.method} needs params.taskId`);
  return { engine, binding: TaskEngine.binding(ctx.auth, ctx.session?.id), id: params.taskId };
}

/** What `tasks/result` answers for a finished task: exactly what the call would have. */
function outcome(record: TaskRecord): JsonObject {
  const related = { [RELATED_TASK_META]: { taskId: record.id } };
  if (record.status === 'completed') {
    const result = record.result ?? { content: [] };
    const meta = isObject(result._meta) ? { ...result._meta, ...related } : related;
    return { ...result, _meta: meta };
  }
  if (record.status === 'failed' && record.error)
    throw new McpError(record.error.code, record.error.message, { data: record.error.data });
  throw new McpError(ErrorCode.ServerError, 'Task cancelled', { data: { taskId: record.id } });
}

/**
 * `tasks/result`: waits for the task to finish. It is also the task's input channel: what the
 * task waits for goes to the client as requests on this stream (with the related-task `_meta`),
 * and their answers go to the task.
 */
async function result(ctx: LegacyContext, params: JsonObject): Promise<JsonObject> {
  const { engine, binding, id } = taskRequest(ctx, params);
  const asked = new Set<string>();
  const related = { [RELATED_TASK_META]: { taskId: id } };
  // Watching from before the first read: a change between a read and the wait is not missed.
  const watch = engine.watch(id, ctx.signal);
  try {
    for (;;) {
      const record = await engine.get(binding, id);
      if (!record) throw notFound();
      if (isTerminal(record.status)) return outcome(record);
      for (const [key, request] of Object.entries(record.inputRequests ?? {})) {
        if (asked.has(key)) continue;
        asked.add(key);
        ctx.ask(request, related).then(
          (answer) => engine.answer(binding, id, { [key]: answer }),
          // Unanswered (the stream dropped, the client refused): the task keeps waiting, and
          // the next tasks/result asks again.
          ignore,
        );
      }
      await watch.next();
      ctx.signal.throwIfAborted();
    }
  } finally {
    watch.close();
  }
}

function ignore(): void {}

/** `tasks/get|result|list|cancel` of 2025-11-25 sessions. */
export const LEGACY_TASK_METHODS: Readonly<Record<string, MethodSpec<LegacyContext>>> = {
  'tasks/get': {
    run: async (ctx, params) => {
      const { engine, binding, id } = taskRequest(ctx, params);
      const record = await engine.get(binding, id);
      if (!record) throw notFound();
      return legacyTask(record);
    },
  },
  'tasks/result': { run: result },
  'tasks/cancel': {
    run: async (ctx, params) => {
      const { engine, binding, id } = taskRequest(ctx, params);
      const before = await engine.get(binding, id);
      if (!before) throw notFound();
      // 2025-11-25: a finished task cannot be cancelled (an error, unlike 2026-07-28's ack).
      if (isTerminal(before.status))
        throw invalidParams(`Cannot cancel task: already ${legacyTask(before).status}`);
      const record = await engine.cancel(binding, id);
      if (!record) throw notFound();
      return legacyTask(record);
    },
  },
  'tasks/list': {
    run: async (ctx, params) => {
      if (!served(ctx)) throw methodNotFound(ctx.method);
      const engine = ctx.endpoint.tasks as TaskEngine;
      const binding = TaskEngine.binding(ctx.auth, ctx.session?.id);
      // Without a session or a principal nobody's tasks can be told apart: nothing to list.
      if (binding === '') throw methodNotFound(ctx.method);
      const cursor = params.cursor;
      if (cursor !== undefined && (typeof cursor !== 'string' || !/^\d+$/.test(cursor)))
        throw invalidParams('Invalid cursor');
      const page = await engine.list(binding, cursor, ctx.endpoint.pageSize);
      const listed: JsonObject = { tasks: page.records.map(legacyTask) };
      if (page.nextCursor !== undefined) listed.nextCursor = page.nextCursor;
      return listed;
    },
  },
};

const withExecution = new WeakMap<JsonObject, JsonObject>();

/**
 * 2025-11-25's `tools/list` shows how each tool runs as a task (`execution.taskSupport`); the
 * other revisions have no such field. Definitions are decorated once and reused.
 */
export function legacyToolsList(list: MethodSpec<LegacyContext>): MethodSpec<LegacyContext> {
  return {
    ...list,
    run: (ctx, params) => {
      const page = list.run(ctx, params) as JsonObject;
      if (!served(ctx)) return page;
      const tools = ctx.endpoint.registry.tools;
      const items = (page.tools as JsonObject[]).map((definition) => {
        const support = tools.get(definition.name as string)?.taskSupport;
        if (support === undefined) return definition;
        let decorated = withExecution.get(definition);
        if (!decorated) {
          decorated = { ...definition, execution: { taskSupport: support } };
          withExecution.set(definition, decorated);
        }
        return decorated;
      });
      return { ...page, tools: items };
    },
  };
}
