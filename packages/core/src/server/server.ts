import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { Schema, SchemaShape } from '../schema/standard.ts';
import { promptEntry, toolEntry } from './entries.ts';
import {
  type PromptHandler,
  type PromptOptions,
  RESOURCE_OPTION_KEYS,
  type Registration,
  type ResourceOptions,
  type ResourceTemplateOptions,
  type SchemaOption,
  type ServerInfo,
  TEMPLATE_OPTION_KEYS,
  type ToolHandler,
  type ToolOptions,
} from './options.ts';
import { checkHandler, checkOptions, checkToolName } from './registration-checks.ts';
import { type ListKind, Registry, type ResourceHandler, type TemplateHandler } from './registry.ts';
import { promptForm, toolForm } from './sdk-v1-forms.ts';
import { type SkillFiles, type SkillOptions, skillEntry } from './skill-entry.ts';
import { strip } from './strip.ts';
import { compileTemplate } from './uri-template.ts';
import { type Visible, visibilityOf } from './visibility.ts';

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
   * they do not match); `outputSchema` checks the handler's `structuredContent`. Both must be
   * object schemas (`type: "object"`, as MCP requires). The handler returns a string (one text
   * block) or a result object, and gets `ctx` with the request's `signal`, progress, logging and
   * client input. Unknown option names throw a `TypeError` naming the nearest known one.
   *
   * The MCP SDK v1 positional forms work too, validated the same way:
   * `tool(name, shape, handler)`, `tool(name, description, shape, handler)`, each also with
   * `annotations` after the shape. Its forms without a schema (`tool(name, handler)`,
   * `tool(name, description, handler)`) throw: their handler got `(extra)` alone, ours gets
   * `(args, ctx)`; write `tool(name, { description }, (args, ctx) => …)`.
   *
   * @example
   * ```ts
   * server.tool('sleep', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
   *   await setTimeout(ms, undefined, { signal: ctx.signal });
   *   return `slept ${ms} ms`;
   * });
   * server.tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, ({ a, b }) =>
   *   String(a + b));
   * ```
   * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
   */
  tool<I extends SchemaOption = undefined, O extends SchemaOption = undefined>(
    name: string,
    options: ToolOptions<I, O>,
    handler: ToolHandler<I>,
  ): Registration;
  /** SDK v1: `tool(name, { a: z.number() }, handler)`, the shape as `inputSchema`. */
  tool<S extends SchemaShape>(name: string, shape: S, handler: ToolHandler<S>): Registration;
  /** SDK v1: `tool(name, description, shape, handler)`. */
  tool<S extends SchemaShape>(
    name: string,
    description: string,
    shape: S,
    handler: ToolHandler<S>,
  ): Registration;
  /** SDK v1: `tool(name, shape, annotations, handler)`. */
  tool<S extends SchemaShape>(
    name: string,
    shape: S,
    annotations: JsonObject,
    handler: ToolHandler<S>,
  ): Registration;
  /** SDK v1: `tool(name, description, shape, annotations, handler)`. */
  tool<S extends SchemaShape>(
    name: string,
    description: string,
    shape: S,
    annotations: JsonObject,
    handler: ToolHandler<S>,
  ): Registration;
  tool(name: string, ...rest: unknown[]): Registration {
    checkToolName(name);
    const [options, handler] = toolForm(name, rest);
    return this.registerTool(
      name,
      options as ToolOptions<SchemaOption, SchemaOption>,
      handler as ToolHandler<SchemaOption>,
    );
  }

  /**
   * `tool()` under the MCP SDKs' name, in its SDK v2 form only: `(name, options, handler)`, for
   * code moving over from them.
   */
  registerTool<I extends SchemaOption = undefined, O extends SchemaOption = undefined>(
    name: string,
    options: ToolOptions<I, O>,
    handler: ToolHandler<I>,
  ): Registration {
    return this.#add(this.#registry.tools, name, toolEntry(name, options, handler), 'tools');
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
    checkOptions(options, `resource ${name}`, RESOURCE_OPTION_KEYS);
    checkHandler(handler, `resource ${name}`);
    const { scopes, visibleTo, ...rest } = options;
    const definition = strip({ uri, name, ...rest });
    const visible = visibilityOf(visibleTo, `resource ${name}`);
    return this.#add(
      this.#registry.resources,
      uri,
      { uri, mimeType: options.mimeType, definition, handler, scopes, visible },
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
    options: ResourceTemplateOptions,
    handler: TemplateHandler,
  ): Registration {
    checkOptions(options, `resource template ${name}`, TEMPLATE_OPTION_KEYS);
    checkHandler(handler, `resource template ${name}`);
    const { complete, scopes, visibleTo, ...rest } = options;
    const definition = strip({ uriTemplate, name, ...rest });
    const visible = visibilityOf(visibleTo, `resource template ${name}`);
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
        visible,
      },
      'resources',
    );
  }

  /**
   * Registers a prompt. `argsSchema` (an object schema, or shape, of string properties) is
   * advertised as the prompt's `arguments` list and validated on `prompts/get`; the handler
   * returns a string (one user message) or `{ messages }`. The MCP SDK v1 forms
   * `prompt(name, argsShape, handler)` and `prompt(name, description, argsShape, handler)` work
   * too; its forms without arguments throw (their handler got `(extra)` alone).
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
  ): Registration;
  /** SDK v1: `prompt(name, { language: z.string() }, handler)`, the shape as `argsSchema`. */
  prompt<S extends SchemaShape>(
    name: string,
    argsShape: S,
    handler: PromptHandler<S>,
  ): Registration;
  /** SDK v1: `prompt(name, description, argsShape, handler)`. */
  prompt<S extends SchemaShape>(
    name: string,
    description: string,
    argsShape: S,
    handler: PromptHandler<S>,
  ): Registration;
  prompt(name: string, ...rest: unknown[]): Registration {
    const [options, handler] = promptForm(name, rest);
    return this.registerPrompt(
      name,
      options as PromptOptions<undefined>,
      handler as PromptHandler<undefined>,
    );
  }

  /**
   * `prompt()` under the MCP SDKs' name, in its SDK v2 form only: `(name, options, handler)`, for
   * code moving over from them.
   */
  registerPrompt<A extends Schema | SchemaShape | undefined = undefined>(
    name: string,
    options: PromptOptions<A>,
    handler: PromptHandler<A>,
  ): Registration {
    return this.#add(this.#registry.prompts, name, promptEntry(name, options, handler), 'prompts');
  }

  /**
   * Serves a skill (the skills extension, SEP-2640): `files` are its folder by path, `SKILL.md`
   * (YAML front matter with `name` and `description`) included. Each file becomes a resource
   * under `skill://[prefix/]<name>/`, the skill is answered by `skills/list` and `skills/get`
   * with its files' sizes and SHA-256 digests, and its folders by `resources/directory/read`.
   * A skill against the extension's rules (its name, front matter, paths, more than 512 files
   * or 16 MiB) throws a `SkillError`.
   *
   * @example
   * ```ts
   * server.skill({
   *   'SKILL.md': '---\nname: greeting\ndescription: Greets people warmly\n---\nSay hello.',
   *   'references/TONE.md': 'Friendly, brief.',
   * });
   * ```
   * @see https://modelcontextprotocol.io/seps/2640-skills-extension
   */
  skill(files: SkillFiles, options: SkillOptions = {}): Registration {
    return { remove: this.#registry.addSkill(skillEntry(files, options)) };
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

  #add<E extends Visible>(
    map: Map<string, E>,
    key: string,
    entry: E,
    kind: ListKind,
  ): Registration {
    return { remove: this.#registry.add(map, key, entry, kind) };
  }
}
