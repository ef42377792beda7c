import { HEADER, META, TASKS_EXTENSION } from '../protocol/constants.ts';
import type { HeaderSource } from '../protocol/era.ts';
import { isObject } from '../protocol/jsonrpc.ts';
import { type McpServer, registryOf } from '../server/server.ts';

/**
 * Where a 2026-07-28 request goes when tasks cannot live where requests are served (a Worker
 * isolate, which cannot keep a handler running after its response):
 *
 * - `call`: a `tools/call` that may become a task: serve it where a task outlives its request;
 * - `task`: `tasks/get|update|cancel` of the task `Mcp-Name` names: serve it where that task lives;
 *   also a `subscriptions/listen` that follows tasks, where the first task it names lives (its
 *   status notifications are raised there; the tasks that live elsewhere are left out of its
 *   acknowledgement, which the client reads to know what it follows);
 * - `read-body`: the headers alone cannot tell (a `tools/call` of a task tool: does the request
 *   declare the extension?); read the body and ask again with the parsed message.
 */
export type TaskRoute =
  | { readonly kind: 'call' }
  | { readonly kind: 'task'; readonly taskId: string }
  | { readonly kind: 'read-body' };

const CALL: TaskRoute = { kind: 'call' };
const READ_BODY: TaskRoute = { kind: 'read-body' };
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
const LISTEN = 'subscriptions/listen';
/** A header value in the Base64 sentinel form (`=?base64?…?=`): read the body instead of decoding it. */
const ENCODED = /^=\?base64\?/;

/**
 * The task route of a 2026-07-28 POST, or `undefined` when it can never create or reach a task
 * (serve it as usual). Pure: it reads `server`'s tools (their `taskSupport`), the request's
 * `Mcp-Method` and `Mcp-Name` headers and, once read, its parsed body (`message`).
 *
 * A `tools/call` may become a task when its tool is registered with `taskSupport` `'optional'`
 * or `'required'` and the request declares the `io.modelcontextprotocol/tasks` extension in
 * `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions`. `tasks/*` are routed
 * by `Mcp-Name`, which the protocol makes equal to `params.taskId`. Headers that disagree with
 * the body are not judged here: wherever the request goes, the endpoint answers them `-32020`,
 * and a request without the headers it needs is left to the endpoint for the same reason.
 */
export function taskRoute(
  server: McpServer,
  headers: HeaderSource,
  message?: unknown,
): TaskRoute | undefined {
  const method = headers.get(HEADER.method)?.trim();
  if (method === undefined) return undefined;
  if (ENCODED.test(method) || method === LISTEN)
    return message === undefined ? READ_BODY : byBody(server, message);
  const isTask = TASK_METHODS.has(method);
  if (!isTask && method !== 'tools/call') return undefined;
  const name = headers.get(HEADER.name)?.trim();
  if (name === undefined || name === '') return undefined;
  if (ENCODED.test(name)) return message === undefined ? READ_BODY : byBody(server, message);
  if (isTask) return { kind: 'task', taskId: name };
  if (!taskCapable(server, name)) return undefined;
  return message === undefined ? READ_BODY : byBody(server, message);
}

/** The route the body alone gives (headers encoded, or the extension to look for). */
function byBody(server: McpServer, message: unknown): TaskRoute | undefined {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  const { method } = message;
  const params = message.params;
  if (typeof method !== 'string') return undefined;
  if (TASK_METHODS.has(method))
    return typeof params.taskId === 'string' ? { kind: 'task', taskId: params.taskId } : undefined;
  if (method === LISTEN) {
    const followed = isObject(params.notifications) ? params.notifications.taskIds : undefined;
    const first = Array.isArray(followed)
      ? followed.find((id) => typeof id === 'string')
      : undefined;
    return first === undefined ? undefined : { kind: 'task', taskId: first };
  }
  if (method !== 'tools/call' || typeof params.name !== 'string') return undefined;
  return taskCapable(server, params.name) && declaresTasks(params) ? CALL : undefined;
}

function taskCapable(server: McpServer, tool: string): boolean {
  return registryOf(server).tools.get(tool)?.taskSupport !== undefined;
}

/** `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions` names the extension. */
function declaresTasks(params: Record<string, unknown>): boolean {
  const meta = params._meta;
  if (!isObject(meta)) return false;
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) return false;
  const extensions = capabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}
