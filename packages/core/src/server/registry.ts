import { SKILLS } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { CompiledSchema } from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import type { ParamHeader } from './param-headers.ts';
import type { SkillEntry, SkillFile } from './skill-entry.ts';
import type { CompleteFn, PromptResult, ResourceResult, ToolResult } from './types.ts';
import type { UriTemplate } from './uri-template.ts';
import type { Visibility, Visible } from './visibility.ts';

/** A resource reader: the URI asked for, and the request's context. */
export type ResourceHandler = (
  uri: string,
  ctx: RequestContext,
) => ResourceResult | Promise<ResourceResult>;

/** A resource template reader: the URI, the template's variables read from it, the context. */
export type TemplateHandler = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
) => ResourceResult | Promise<ResourceResult>;

/** What every entry carries: the scopes a caller needs to use it and who sees it (`undefined`: none, all). */
export interface Scoped extends Visible {
  readonly scopes: readonly string[] | undefined;
}

/** Whether a tool's calls may run as tasks (the tasks extension). */
export type TaskSupport = 'optional' | 'required';

export interface ToolEntry extends Scoped {
  readonly name: string;
  /** May its calls run as tasks (`undefined`: never, the `forbidden` of the spec). */
  readonly taskSupport: TaskSupport | undefined;
  /** `immediate`: a call that may be a task is one before the handler runs; `manual`: `ctx.detach()`. */
  readonly taskStart: 'immediate' | 'manual';
  /** Runs a task of it may have in all (its `retry`; a lost runner past it fails the task). */
  readonly maxAttempts: number;
  readonly definition: JsonObject;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly paramHeaders: readonly ParamHeader[];
  readonly handler: (args: unknown, ctx: RequestContext) => ToolResult | Promise<ToolResult>;
}

export interface ResourceEntry extends Scoped {
  readonly uri: string;
  readonly mimeType: string | undefined;
  readonly definition: JsonObject;
  readonly handler: ResourceHandler;
}

export interface TemplateEntry extends Scoped {
  readonly name: string;
  readonly template: UriTemplate;
  readonly mimeType: string | undefined;
  readonly definition: JsonObject;
  readonly complete: Readonly<Record<string, CompleteFn>>;
  readonly handler: TemplateHandler;
}

export interface PromptEntry extends Scoped {
  readonly name: string;
  readonly definition: JsonObject;
  readonly args: CompiledSchema;
  readonly complete: Readonly<Record<string, CompleteFn>>;
  readonly handler: (args: unknown, ctx: RequestContext) => PromptResult | Promise<PromptResult>;
}

/** A file of a skill other than its `SKILL.md` (which is an ordinary, listed resource). */
export interface SkillFileEntry extends Scoped {
  readonly file: SkillFile;
}

/** Which list a change concerns (`notifications/<kind>/list_changed`). */
export type ListKind = 'tools' | 'resources' | 'prompts';
/** The four lists the server answers. */
export type ListName = 'tools' | 'resources' | 'templates' | 'prompts';
/**
 * Where a change was raised: `local`, a registration (each instance changes its own registry);
 * `cluster`, `notifyListChanged()` / `notifyResourceUpdated()` (every instance must hear it);
 * `remote`, delivered from another instance by the handler's cluster bus.
 */
export type ChangeOrigin = 'local' | 'cluster' | 'remote';
/**
 * `visible`: the changed registration's, when not everyone sees it; only callers it admits are
 * told (a change of what a caller cannot see is no change to its list).
 */
type ChangeListener = (kind: ListKind, origin: ChangeOrigin, visible?: Visibility) => void;
type UpdateListener = (uri: string, origin: ChangeOrigin) => void;

/**
 * What a server holds, as the protocol layers read it: the entries, their definitions as the
 * lists send them, the capabilities they imply, and the listeners of changes. Not public API:
 * `McpServer` is the only writer, through its registration methods.
 */
export class Registry {
  readonly tools: Map<string, ToolEntry> = new Map();
  readonly resources: Map<string, ResourceEntry> = new Map();
  readonly templates: Map<string, TemplateEntry> = new Map();
  readonly prompts: Map<string, PromptEntry> = new Map();
  /** Skills by the URI of their `SKILL.md`. */
  readonly skills: Map<string, SkillEntry> = new Map();
  /** The files of every skill but their `SKILL.md`s, by URI: readable, not listed. */
  readonly skillFiles: Map<string, SkillFileEntry> = new Map();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #updateListeners = new Set<UpdateListener>();
  /** Capabilities, computed once per change of the registry. */
  #capabilities: JsonObject | undefined;
  /** Whether a tool may run as a task (computed with the capabilities). */
  #tasks = false;
  /** Definitions in registration order, rebuilt lazily after a change. */
  #lists: Partial<Record<ListName, JsonObject[]>> = {};
  /** Whether some entry has a `visibleTo` (computed with the capabilities). */
  #restricted = false;

  /**
   * The definitions one list method sends (all four kinds), in registration order; with
   * `admits`, only the entries it admits (not cached: it depends on the caller). A list where
   * everyone sees everything (no `visibleTo`, no `hideUnauthorized`) is the cached one.
   */
  list(kind: ListName, admits?: (entry: Scoped) => boolean): JsonObject[] {
    if (admits) {
      const source: Map<string, Scoped & { definition: JsonObject }> = this[kind];
      return [...source.values()].filter(admits).map((entry) => entry.definition);
    }
    let cached = this.#lists[kind];
    if (!cached) {
      const source: Map<string, { definition: JsonObject }> = this[kind];
      cached = [...source.values()].map((entry) => entry.definition);
      this.#lists[kind] = cached;
    }
    return cached;
  }

  /**
   * Server capabilities: a feature is advertised once something of it is registered. Computed
   * once per change, not per request. Do not mutate the returned object.
   */
  capabilities(): JsonObject {
    if (this.#capabilities) return this.#capabilities;
    this.#tasks = [...this.tools.values()].some((tool) => tool.taskSupport !== undefined);
    const maps: Map<string, Scoped>[] = [this.tools, this.resources, this.templates, this.prompts];
    this.#restricted = maps.some((map) => [...map.values()].some((entry) => entry.visible));
    const caps: JsonObject = { logging: {} };
    if (this.tools.size > 0) caps.tools = { listChanged: true };
    if (this.resources.size > 0 || this.templates.size > 0)
      caps.resources = { listChanged: true, subscribe: true };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true };
    if (this.prompts.size > 0 || this.templates.size > 0) caps.completions = {};
    if (this.skills.size > 0) caps.extensions = { [SKILLS.extension]: { directoryRead: true } };
    this.#capabilities = caps;
    return caps;
  }

  /** Whether some tool's calls may run as tasks (the server then offers the tasks extension). */
  get tasks(): boolean {
    this.capabilities();
    return this.#tasks;
  }

  /** Whether some registration is not seen by everyone (lists then differ per caller). */
  get restricted(): boolean {
    this.capabilities();
    return this.#restricted;
  }

  /** Transports subscribe here; returns the unsubscribe function. */
  onListChanged(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  onResourceUpdated(listener: UpdateListener): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  listChanged(kind: ListKind, origin: ChangeOrigin, visible?: Visibility): void {
    for (const listener of this.#changeListeners) listener(kind, origin, visible);
  }

  resourceUpdated(uri: string, origin: ChangeOrigin): void {
    for (const listener of this.#updateListeners) listener(uri, origin);
  }

  /** Registers `entry` under `key`; returns what removes it again. */
  add<E extends Visible>(map: Map<string, E>, key: string, entry: E, kind: ListKind): () => void {
    if (map.has(key)) throw new TypeError(`Duplicate registration: ${key}`);
    map.set(key, entry);
    this.#changed(kind, entry.visible);
    return () => {
      if (map.get(key) === entry) {
        map.delete(key);
        this.#changed(kind, entry.visible);
      }
    };
  }

  /**
   * Registers a skill: its `SKILL.md` as a resource, its other files as readable skill files, all
   * at once or none (a URI already served throws). Returns what removes it again.
   */
  addSkill(skill: SkillEntry): () => void {
    const [manifest, ...rest] = skill.files as [SkillFile, ...SkillFile[]];
    for (const file of skill.files)
      if (this.resources.has(file.uri) || this.skillFiles.has(file.uri))
        throw new TypeError(`Duplicate registration: ${file.uri}`);
    const scopes = skill.scopes;
    // The skill first: listeners told of the change read capabilities that name the extension.
    this.skills.set(skill.uri, skill);
    for (const file of rest) this.skillFiles.set(file.uri, { file, scopes, visible: undefined });
    const removeManifest = this.add(
      this.resources,
      manifest.uri,
      {
        uri: manifest.uri,
        mimeType: manifest.mimeType,
        definition: manifest.definition,
        handler: () => manifest.content,
        scopes,
        visible: undefined,
      },
      'resources',
    );
    return () => {
      if (this.skills.get(skill.uri) !== skill) return;
      this.skills.delete(skill.uri);
      for (const file of rest) this.skillFiles.delete(file.uri);
      removeManifest();
    };
  }

  #changed(kind: ListKind, visible: Visibility | undefined): void {
    this.#capabilities = undefined;
    if (kind === 'resources') {
      this.#lists.resources = undefined;
      this.#lists.templates = undefined;
    } else this.#lists[kind] = undefined;
    this.listChanged(kind, 'local', visible);
  }
}
