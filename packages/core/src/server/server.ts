import type { JsonObject } from '../protocol/jsonrpc.ts';
import {
  type CompiledSchema,
  compileSchema,
  type Infer,
  type JsonSchema,
  type Schema,
  type SchemaShape,
} from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import { strip } from './features.ts';
import { type ParamHeader, paramHeadersOf } from './param-headers.ts';
import type {
  CompleteFn,
  Implementation,
  PromptResult,
  ResourceResult,
  ToolResult,
} from './types.ts';
import { compileTemplate, type UriTemplate } from './uri-template.ts';

export interface ServerInfo extends Implementation {
  /** Sent in `server/discover` and the legacy InitializeResult. */
  instructions?: string;
}

/** What a tool's or prompt's schema option takes. */
export type SchemaOption = Schema | SchemaShape | JsonSchema | undefined;

export interface ToolOptions<I extends SchemaOption, O extends SchemaOption> {
  title?: string;
  description?: string;
  /**
   * Arguments schema: zod 4, valibot wrapped with `toStandardJsonSchema()`, a shape of them
   * (`{ text: z.string() }`), or a plain JSON Schema (advertised, not validated). Validated before
   * the handler runs; invalid arguments are answered -32602.
   * @default { type: 'object' } (any arguments)
   */
  inputSchema?: I;
  /** Structured-result schema; the handler's `structuredContent` is validated against it. */
  outputSchema?: O;
  annotations?: JsonObject;
  _meta?: JsonObject;
}

export type ToolHandler<I> = (
  args: Infer<I>,
  ctx: RequestContext,
) => ToolResult | Promise<ToolResult>;

export interface ToolEntry {
  readonly name: string;
  readonly definition: JsonObject;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly paramHeaders: readonly ParamHeader[];
  readonly handler: (args: unknown, ctx: RequestContext) => ToolResult | Promise<ToolResult>;
}

export interface ResourceOptions {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  _meta?: JsonObject;
}

export type ResourceHandler = (
  uri: string,
  ctx: RequestContext,
) => ResourceResult | Promise<ResourceResult>;
export type TemplateHandler = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
) => ResourceResult | Promise<ResourceResult>;

export interface ResourceEntry {
  readonly uri: string;
  readonly mimeType: string | undefined;
  readonly definition: JsonObject;
  readonly handler: ResourceHandler;
}

export interface TemplateEntry {
  readonly name: string;
  readonly template: UriTemplate;
  readonly mimeType: string | undefined;
  readonly definition: JsonObject;
  readonly complete: Record<string, CompleteFn>;
  readonly handler: TemplateHandler;
}

export interface PromptOptions<A extends Schema | SchemaShape | undefined> {
  title?: string;
  description?: string;
  /** Arguments as an object schema (or shape) of string properties; advertised as the prompt's `arguments` list. */
  argsSchema?: A;
  /** Completion per argument name. */
  complete?: Record<string, CompleteFn>;
  _meta?: JsonObject;
}

export type PromptHandler<A> = (
  args: Infer<A>,
  ctx: RequestContext,
) => PromptResult | Promise<PromptResult>;

export interface PromptEntry {
  readonly name: string;
  readonly definition: JsonObject;
  readonly args: CompiledSchema;
  readonly complete: Record<string, CompleteFn>;
  readonly handler: (args: unknown, ctx: RequestContext) => PromptResult | Promise<PromptResult>;
}

/** Removes a registered tool, resource, template or prompt (and tells listeners the list changed). */
export interface Registration {
  remove(): void;
}

export type ListKind = 'tools' | 'resources' | 'prompts';
type ChangeListener = (kind: ListKind) => void;
type UpdateListener = (uri: string) => void;

/**
 * The definition of an MCP server: its tools, resources, templates, prompts and completions.
 * Build it once and hand it to `createMcpHandler()`; schemas are compiled at registration.
 */
export class McpServer {
  readonly info: ServerInfo;
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #updateListeners = new Set<UpdateListener>();
  /** Definitions in registration order, rebuilt lazily after a change. */
  #capabilities: JsonObject | undefined;
  #cache: Partial<Record<'tools' | 'resources' | 'templates' | 'prompts', JsonObject[]>> = {};

  constructor(info: ServerInfo) {
    this.info = info;
  }

  tool<I extends SchemaOption = undefined, O extends SchemaOption = undefined>(
    name: string,
    options: ToolOptions<I, O>,
    handler: ToolHandler<I>,
  ): Registration {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name))
      throw new TypeError(`Invalid tool name "${name}": use 1-128 of [A-Za-z0-9_.-]`);
    checkOptions(options, `tool ${name}`, RENAMED_TOOL_OPTIONS);
    if (typeof handler !== 'function')
      throw new TypeError(`tool ${name}: the handler must be a function`);
    const input = compileSchema(options.inputSchema, 'input', `tool ${name}`);
    const output =
      options.outputSchema === undefined
        ? undefined
        : compileSchema(options.outputSchema, 'output', `tool ${name}`);
    const definition: JsonObject = strip({
      name,
      title: options.title,
      description: options.description,
      inputSchema: input.json,
      outputSchema: output?.json,
      annotations: options.annotations,
      _meta: options._meta,
    });
    const entry: ToolEntry = {
      name,
      definition,
      input,
      output,
      paramHeaders: paramHeadersOf(input.json, name),
      handler: handler as ToolEntry['handler'],
    };
    return this.#add(this.tools, name, entry, 'tools');
  }

  resource(
    name: string,
    uri: string,
    options: ResourceOptions,
    handler: ResourceHandler,
  ): Registration {
    const definition = strip({ uri, name, ...options });
    return this.#add(
      this.resources,
      uri,
      { uri, mimeType: options.mimeType, definition, handler },
      'resources',
    );
  }

  resourceTemplate(
    name: string,
    uriTemplate: string,
    options: ResourceOptions & { complete?: Record<string, CompleteFn> },
    handler: TemplateHandler,
  ): Registration {
    const { complete, ...rest } = options;
    const definition = strip({ uriTemplate, name, ...rest });
    const entry: TemplateEntry = {
      name,
      template: compileTemplate(uriTemplate),
      mimeType: options.mimeType,
      definition,
      complete: complete ?? {},
      handler,
    };
    return this.#add(this.templates, uriTemplate, entry, 'resources');
  }

  prompt<A extends Schema | SchemaShape | undefined = undefined>(
    name: string,
    options: PromptOptions<A>,
    handler: PromptHandler<A>,
  ): Registration {
    checkOptions(options, `prompt ${name}`, RENAMED_PROMPT_OPTIONS);
    const args = compileSchema(options.argsSchema, 'input', `prompt ${name}`);
    const definition = strip({
      name,
      title: options.title,
      description: options.description,
      arguments: promptArguments(args.json),
      _meta: options._meta,
    });
    const entry: PromptEntry = {
      name,
      definition,
      args,
      complete: options.complete ?? {},
      handler: handler as PromptEntry['handler'],
    };
    return this.#add(this.prompts, name, entry, 'prompts');
  }

  /** Tool definitions as `tools/list` sends them, in registration order. */
  list(kind: 'tools' | 'resources' | 'templates' | 'prompts'): JsonObject[] {
    let cached = this.#cache[kind];
    if (!cached) {
      const source: Map<string, { definition: JsonObject }> = this[kind];
      cached = [...source.values()].map((entry) => entry.definition);
      this.#cache[kind] = cached;
    }
    return cached;
  }

  /**
   * Server capabilities: a feature is advertised once something of it is registered. Computed
   * once per change of the registry, not per request. Do not mutate the returned object.
   */
  capabilities(): JsonObject {
    if (this.#capabilities) return this.#capabilities;
    const caps: JsonObject = { logging: {} };
    if (this.tools.size > 0) caps.tools = { listChanged: true };
    if (this.resources.size > 0 || this.templates.size > 0)
      caps.resources = { listChanged: true, subscribe: true };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true };
    if (this.prompts.size > 0 || this.templates.size > 0) caps.completions = {};
    this.#capabilities = caps;
    return caps;
  }

  /** Tells every open subscription (listen stream, legacy session) that a list changed. */
  notifyListChanged(kind: ListKind): void {
    for (const listener of this.#changeListeners) listener(kind);
  }

  /** Tells subscribers of `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    for (const listener of this.#updateListeners) listener(uri);
  }

  /** @internal transports subscribe here; returns the unsubscribe function. */
  onListChanged(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** @internal */
  onResourceUpdated(listener: UpdateListener): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  #add<E>(map: Map<string, E>, key: string, entry: E, kind: ListKind): Registration {
    if (map.has(key)) throw new TypeError(`Duplicate registration: ${key}`);
    map.set(key, entry);
    this.#changed(kind);
    return {
      remove: () => {
        if (map.get(key) === entry) {
          map.delete(key);
          this.#changed(kind);
        }
      },
    };
  }

  #changed(kind: ListKind): void {
    this.#capabilities = undefined;
    if (kind === 'resources') {
      this.#cache.resources = undefined;
      this.#cache.templates = undefined;
    } else this.#cache[kind] = undefined;
    this.notifyListChanged(kind);
  }
}

/** A prompt's `arguments` list from an object JSON Schema. */
function promptArguments(json: JsonSchema): JsonObject[] | undefined {
  const properties = json.properties as Record<string, JsonObject> | undefined;
  if (!properties) return undefined;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) =>
    strip({ name, description: property.description, required: required.has(name) }),
  );
}

/** Option names of earlier edge-mcp releases, refused with the name to use instead. */
const RENAMED_TOOL_OPTIONS: Readonly<Record<string, string>> = {
  input: 'inputSchema',
  output: 'outputSchema',
};
const RENAMED_PROMPT_OPTIONS: Readonly<Record<string, string>> = { arguments: 'argsSchema' };

/**
 * A plain-JavaScript caller has no compiler to catch a misspelt option: an option under its old
 * name would be ignored silently (a tool without validation), so it is refused here.
 */
function checkOptions(
  options: object,
  what: string,
  renamed: Readonly<Record<string, string>>,
): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${what}: options must be an object`);
  for (const [old, name] of Object.entries(renamed))
    if (old in options)
      throw new TypeError(
        `${what}: the option is named ${name}, not ${old} (as in the MCP SDKs and on the wire)`,
      );
}
