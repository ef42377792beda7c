import { invalidParams, McpError, ResourceNotFoundError } from '../errors.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import { parseWith } from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import type { McpServer, ToolEntry } from './server.ts';
import type { CompleteFn, PromptResult, ResourceResult } from './types.ts';

/**
 * The era-neutral server features: what tools/call, resources/read, prompts/get, completion and
 * the lists do, without the wire shape of either era (resultType, cache hints) around them.
 */

/** Thrown by `ctx.input()` when answers are missing; the modern dispatcher turns it into a result. */
export class InputRequired {
  readonly requests: JsonObject;
  constructor(requests: JsonObject) {
    this.requests = requests;
  }
}

export function findTool(server: McpServer, params: JsonObject): ToolEntry {
  const name = params.name;
  if (typeof name !== 'string') throw invalidParams('tools/call needs a tool name');
  const tool = server.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${name}`);
  return tool;
}

export async function readResource(
  server: McpServer,
  uri: unknown,
  ctx: RequestContext,
  notFound: number,
): Promise<JsonObject> {
  if (typeof uri !== 'string') throw invalidParams('resources/read needs a uri');
  try {
    const direct = server.resources.get(uri);
    if (direct) return resourceResult(uri, direct.mimeType, await direct.handler(uri, ctx));
    for (const template of server.templates.values()) {
      const variables = template.template.match(uri);
      if (variables) {
        return resourceResult(uri, template.mimeType, await template.handler(uri, variables, ctx));
      }
    }
  } catch (error) {
    if (!(error instanceof ResourceNotFoundError)) throw error;
  }
  throw new McpError(notFound, `Resource not found: ${uri}`, { data: { uri } });
}

function resourceResult(
  uri: string,
  mimeType: string | undefined,
  value: ResourceResult,
): JsonObject {
  if (typeof value === 'string') return { contents: [strip({ uri, mimeType, text: value })] };
  if (value instanceof Uint8Array)
    return { contents: [strip({ uri, mimeType, blob: toBase64(value) })] };
  // A copy: the dispatchers add fields (resultType, cache hints) to what they get.
  return { ...(value as unknown as JsonObject) };
}

export async function getPrompt(
  server: McpServer,
  params: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  const name = params.name;
  const prompt = typeof name === 'string' ? server.prompts.get(name) : undefined;
  if (!prompt) throw invalidParams(`Unknown prompt: ${String(name)}`);
  const args = await parseWith(prompt.args, params.arguments ?? {}, 'prompt', prompt.name);
  const value: PromptResult = await prompt.handler(args, ctx);
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  return { ...(value as unknown as JsonObject) };
}

export async function complete(server: McpServer, params: JsonObject): Promise<JsonObject> {
  const ref = params.ref;
  const argument = params.argument;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw invalidParams('completion/complete needs ref and argument.name');
  }
  let source: Record<string, CompleteFn> | undefined;
  if (ref.type === 'ref/prompt') {
    const prompt = server.prompts.get(String(ref.name));
    if (!prompt) throw invalidParams(`Unknown prompt: ${String(ref.name)}`);
    source = prompt.complete;
  } else if (ref.type === 'ref/resource') {
    const template = server.templates.get(String(ref.uri));
    if (!template && !server.resources.has(String(ref.uri)))
      throw invalidParams(`Unknown resource: ${String(ref.uri)}`);
    source = template?.complete;
  } else {
    throw invalidParams('ref.type must be ref/prompt or ref/resource');
  }
  const fn = source?.[argument.name];
  const context =
    isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const all = fn
    ? await fn(String(argument.value ?? ''), { arguments: context as Record<string, string> })
    : [];
  return {
    completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 },
  };
}

/** One page of a list; cursors are offsets, opaque to clients. */
function listPage(
  items: JsonObject[],
  cursor: unknown,
  pageSize: number,
): { items: JsonObject[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined && cursor !== '') {
    offset = typeof cursor === 'string' && /^\d+$/.test(cursor) ? Number(cursor) : -1;
    if (offset < 0 || offset > items.length) throw invalidParams('Invalid cursor');
  }
  const end = offset + pageSize;
  if (offset === 0 && end >= items.length) return { items };
  return end < items.length
    ? { items: items.slice(offset, end), nextCursor: String(end) }
    : { items: items.slice(offset) };
}

export function internal(message: string): McpError {
  return new McpError(ErrorCode.InternalError, message);
}

export function strip(object: Record<string, unknown>): JsonObject {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object as JsonObject;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Whether the server advertises the feature a method belongs to (else: method not found). */
export function advertises(server: McpServer, method: string): boolean {
  const caps = server.capabilities();
  const feature = method.slice(0, method.indexOf('/'));
  if (feature === 'tools' || feature === 'resources' || feature === 'prompts')
    return feature in caps;
  if (feature === 'completion') return 'completions' in caps;
  return true;
}

export type ListName = 'tools' | 'resources' | 'templates' | 'prompts';

/** One page of a list method's result, `{ [field]: items, nextCursor? }`. */
export function listResult(
  server: McpServer,
  kind: ListName,
  field: string,
  cursor: unknown,
  pageSize: number,
): JsonObject {
  const { items, nextCursor } = listPage(server.list(kind), cursor, pageSize);
  return nextCursor === undefined ? { [field]: items } : { [field]: items, nextCursor };
}

/** The JSON-RPC error object for what a handler threw (anything not an McpError is -32603). */
export function rpcError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof McpError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  return {
    code: ErrorCode.InternalError,
    message: error instanceof Error ? error.message : 'Internal error',
  };
}
