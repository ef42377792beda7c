import type { AuthInfo } from '../auth/auth-info.ts';
import { invalidParams, ResourceNotFoundError } from '../errors.ts';
import { describeValue, isObject, type JsonObject } from '../protocol/jsonrpc.ts';
import { parseWith } from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import type { Registry, ToolEntry } from './registry.ts';
import { requireScopes } from './resource-server.ts';
import { strip } from './strip.ts';
import type { CompleteFn, PromptResult, ResourceResult } from './types.ts';
import { sees } from './visibility.ts';

/**
 * The era-neutral server features: what resources/read, prompts/get and completion do (tools/call
 * in call-tool.ts), without the wire shape of either era (resultType, cache hints) around them.
 */

/** The tool `params.name` names, if the caller sees it; else as unknown (`visibleTo`). */
export function findTool(
  registry: Registry,
  params: JsonObject,
  auth: AuthInfo | undefined,
): ToolEntry {
  const name = params.name;
  if (typeof name !== 'string') throw invalidParams('tools/call needs a tool name');
  const tool = registry.tools.get(name);
  if (!tool || !sees(tool.visible, auth)) throw invalidParams(`Unknown tool: ${name}`);
  return tool;
}

/**
 * `resources/read`: a fixed resource, else the first template that matches. A URI nothing
 * serves throws `ResourceNotFoundError`; each era answers it with its own code.
 */
export async function readResource(
  registry: Registry,
  uri: unknown,
  ctx: RequestContext,
): Promise<JsonObject> {
  if (typeof uri !== 'string') throw invalidParams('resources/read needs a uri');
  const direct = registry.resources.get(uri);
  // What the caller does not see is not there: a hidden resource or template is passed over.
  if (direct && sees(direct.visible, ctx.auth)) {
    requireScopes(ctx.auth, direct.scopes);
    return resourceResult(uri, direct.mimeType, await direct.handler(uri, ctx));
  }
  const skillFile = registry.skillFiles.get(uri);
  if (skillFile) {
    requireScopes(ctx.auth, skillFile.scopes);
    const { file } = skillFile;
    return resourceResult(uri, file.mimeType, file.content);
  }
  for (const template of registry.templates.values()) {
    const variables = sees(template.visible, ctx.auth) && template.template.match(uri);
    if (variables) {
      requireScopes(ctx.auth, template.scopes);
      return resourceResult(uri, template.mimeType, await template.handler(uri, variables, ctx));
    }
  }
  throw new ResourceNotFoundError(uri);
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
  registry: Registry,
  params: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  const name = params.name;
  const prompt = typeof name === 'string' ? registry.prompts.get(name) : undefined;
  if (!prompt || !sees(prompt.visible, ctx.auth))
    throw invalidParams(`Unknown prompt: ${describeValue(name)}`);
  requireScopes(ctx.auth, prompt.scopes);
  const args = await parseWith(prompt.args, params.arguments ?? {}, 'prompt', prompt.name);
  const value: PromptResult = await prompt.handler(args, ctx);
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  return { ...(value as unknown as JsonObject) };
}

export async function complete(
  registry: Registry,
  params: JsonObject,
  auth: AuthInfo | undefined,
): Promise<JsonObject> {
  const ref = params.ref;
  const argument = params.argument;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string') {
    throw invalidParams('completion/complete needs ref and argument.name');
  }
  let source: Record<string, CompleteFn> | undefined;
  if (ref.type === 'ref/prompt') {
    const prompt = typeof ref.name === 'string' ? registry.prompts.get(ref.name) : undefined;
    if (!prompt || !sees(prompt.visible, auth))
      throw invalidParams(`Unknown prompt: ${describeValue(ref.name)}`);
    source = prompt.complete;
  } else if (ref.type === 'ref/resource') {
    const uri = typeof ref.uri === 'string' ? ref.uri : undefined;
    const found = uri === undefined ? undefined : registry.templates.get(uri);
    const template = found && sees(found.visible, auth) ? found : undefined;
    const resource = uri === undefined ? undefined : registry.resources.get(uri);
    if (!template && (resource === undefined || !sees(resource.visible, auth)))
      throw invalidParams(`Unknown resource: ${describeValue(ref.uri)}`);
    source = template?.complete;
  } else {
    throw invalidParams('ref.type must be ref/prompt or ref/resource');
  }
  // Own properties only: a name such as `constructor` must not reach Object.prototype.
  const fn = source && Object.hasOwn(source, argument.name) ? source[argument.name] : undefined;
  const context =
    isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const value = typeof argument.value === 'string' ? argument.value : '';
  const all = fn ? await fn(value, { arguments: stringsOf(context) }) : [];
  if (!Array.isArray(all) || !all.every((item) => typeof item === 'string'))
    throw new TypeError(`The completion of ${argument.name} did not return an array of strings`);
  return {
    completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 },
  };
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The string-valued entries of a client's `context.arguments` (completion functions get strings). */
function stringsOf(values: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values))
    if (typeof value === 'string') out[key] = value;
  return out;
}
