import type { JsonObject } from '../protocol/jsonrpc.ts';
import {
  compileSchema,
  type JsonSchema,
  type Schema,
  type SchemaShape,
} from '../schema/standard.ts';
import type {
  PromptHandler,
  PromptOptions,
  Registration,
  ResourceOptions,
  SchemaOption,
  ServerInfo,
  ToolHandler,
  ToolOptions,
} from './options.ts';
import { paramHeadersOf } from './param-headers.ts';
import {
  type ListKind,
  type PromptEntry,
  Registry,
  type ResourceHandler,
  type TemplateHandler,
  type ToolEntry,
} from './registry.ts';
import { strip } from './strip.ts';
import type { CompleteFn } from './types.ts';
import { compileTemplate } from './uri-template.ts';

let registry: (server: McpServer) => Registry;

/** The registry behind a server, for the protocol layers (not exported from the package). */
export function registryOf(server: McpServer): Registry {
  return registry(server);
}

/**
 * The definition of an MCP server: its tools, resources, templates, prompts and completions.
 * Build it once and hand it to `createMcpHandler()`; schemas are compiled at registration, and
 * each registration can be removed again (clients are told the list changed).
 *
 * @example
 * ```ts
 * const server = new McpServer({ name: 'notes', version: '1.0.0' });
 * server.tool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) },
 *   ({ a, b }) => String(a + b));
 * ```
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server
 */
export class McpServer {
  /** Name, version and instructions, as `server/discover` and `initialize` send them. */
  readonly info: ServerInfo;
  readonly #registry = new Registry();

  static {
    registry = (server) => server.#registry;
  }

  constructor(info: ServerInfo) {
    this.info = info;
  }

  /**
   * Registers a tool. `inputSchema` validates the arguments before `handler` runs (-32602 when
   * they do not match); `outputSchema` checks the handler's `structuredContent`. The handler
   * returns a string (one text block) or a result object, and gets `ctx` with the request's
   * `signal`, progress, logging and client input.
   *
   * @example
   * ```ts
   * server.tool('sleep', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
   *   await setTimeout(ms, undefined, { signal: ctx.signal });
   *   return `slept ${ms} ms`;
   * });
   * ```
   * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
   */
  tool<I extends SchemaOption = undefined, O extends SchemaOption = undefined>(
    name: string,
    options: ToolOptions<I, O>,
    handler: ToolHandler<I>,
  ): Registration {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name))
      throw new TypeError(`Invalid tool name "${name}": use 1-128 of [A-Za-z0-9_.-]`);
    checkOptions(options, `tool ${name}`, RENAMED_TOOL_OPTIONS);
    checkHandler(handler, `tool ${name}`);
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
      scopes: options.scopes,
      taskSupport: options.taskSupport === 'forbidden' ? undefined : options.taskSupport,
      taskStart: options.taskStart ?? 'immediate',
      name,
      definition,
      input,
      output,
      paramHeaders: paramHeadersOf(input.json, name),
      handler: handler as ToolEntry['handler'],
    };
    return this.#add(this.#registry.tools, name, entry, 'tools');
  }

  /** `tool()` under the MCP SDKs' name (same arguments), for code moving over from them. */
  registerTool<I extends SchemaOption = undefined, O extends SchemaOption = undefined>(
    name: string,
    options: ToolOptions<I, O>,
    handler: ToolHandler<I>,
  ): Registration {
    return this.tool(name, options, handler);
  }

  /**
   * Registers a resource at a fixed URI. The reader returns text, bytes (sent as a base64 blob)
   * or a full `{ contents }` result; throw `ResourceNotFoundError` for a URI that has nothing.
   *
   * @example
   * ```ts
   * server.resource('readme', 'docs://readme', { mimeType: 'text/markdown' }, () => '# Hello');
   * ```
   * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
   */
  resource(
    name: string,
    uri: string,
    options: ResourceOptions,
    handler: ResourceHandler,
  ): Registration {
    checkHandler(handler, `resource ${name}`);
    const { scopes, ...rest } = options;
    const definition = strip({ uri, name, ...rest });
    return this.#add(
      this.#registry.resources,
      uri,
      { uri, mimeType: options.mimeType, definition, handler, scopes },
      'resources',
    );
  }

  /**
   * Registers a resource template (RFC 6570: `{var}`, `{+var}`, `{#var}`, `{/var}`, `{?a,b}`);
   * `resources/read` of a matching URI calls the reader with the variables. `complete` offers
   * completions per variable.
   *
   * @example
   * ```ts
   * server.resourceTemplate('user', 'users://{id}', {}, (uri, { id }) => JSON.stringify({ id }));
   * ```
   */
  resourceTemplate(
    name: string,
    uriTemplate: string,
    options: ResourceOptions & { complete?: Record<string, CompleteFn> },
    handler: TemplateHandler,
  ): Registration {
    checkHandler(handler, `resource template ${name}`);
    const { complete, scopes, ...rest } = options;
    const definition = strip({ uriTemplate, name, ...rest });
    return this.#add(
      this.#registry.templates,
      uriTemplate,
      {
        name,
        template: compileTemplate(uriTemplate),
        mimeType: options.mimeType,
        definition,
        complete: complete ?? {},
        handler,
        scopes,
      },
      'resources',
    );
  }

  /**
   * Registers a prompt. `argsSchema` (an object of string properties) is advertised as the
   * prompt's `arguments` list and validated on `prompts/get`; the handler returns a string (one
   * user message) or `{ messages }`.
   *
   * @example
   * ```ts
   * server.prompt('review', { argsSchema: z.object({ language: z.string() }) },
   *   ({ language }) => `Review this ${language} code`);
   * ```
   * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
   */
  prompt<A extends Schema | SchemaShape | undefined = undefined>(
    name: string,
    options: PromptOptions<A>,
    handler: PromptHandler<A>,
  ): Registration {
    checkOptions(options, `prompt ${name}`, RENAMED_PROMPT_OPTIONS);
    checkHandler(handler, `prompt ${name}`);
    const args = compileSchema(options.argsSchema, 'input', `prompt ${name}`);
    const definition = strip({
      name,
      title: options.title,
      description: options.description,
      arguments: promptArguments(args.json),
      _meta: options._meta,
    });
    const entry: PromptEntry = {
      scopes: options.scopes,
      name,
      definition,
      args,
      complete: options.complete ?? {},
      handler: handler as PromptEntry['handler'],
    };
    return this.#add(this.#registry.prompts, name, entry, 'prompts');
  }

  /** `prompt()` under the MCP SDKs' name (same arguments), for code moving over from them. */
  registerPrompt<A extends Schema | SchemaShape | undefined = undefined>(
    name: string,
    options: PromptOptions<A>,
    handler: PromptHandler<A>,
  ): Registration {
    return this.prompt(name, options, handler);
  }

  /**
   * Tells every open subscription that a list changed: 2026-07-28 `subscriptions/listen` streams
   * that asked for it, and legacy sessions on their GET stream; with the handler's `cluster`
   * option, those of every instance. Registering and removing entries already does this (on this
   * instance); call it when what a list would return changed otherwise.
   */
  notifyListChanged(kind: ListKind): void {
    this.#registry.listChanged(kind, 'cluster');
  }

  /**
   * Tells the subscribers of `uri` (listen streams, legacy `resources/subscribe`) that it changed,
   * on every instance with the handler's `cluster` option.
   */
  notifyResourceUpdated(uri: string): void {
    this.#registry.resourceUpdated(uri, 'cluster');
  }

  #add<E>(map: Map<string, E>, key: string, entry: E, kind: ListKind): Registration {
    return { remove: this.#registry.add(map, key, entry, kind) };
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

function checkHandler(handler: unknown, what: string): void {
  if (typeof handler !== 'function') throw new TypeError(`${what}: the handler must be a function`);
}
