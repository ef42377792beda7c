import type { JsonObject } from '../protocol/jsonrpc.ts';
import { optionKeys } from '../schema/option-keys.ts';
import type { Infer, JsonSchema, Schema, SchemaShape } from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import type { CompleteFn, Implementation, PromptResult, ToolResult } from './types.ts';
import type { VisibleTo } from './visibility.ts';

export interface ServerInfo extends Implementation {
  /** Sent in `server/discover` and the legacy InitializeResult. */
  instructions?: string;
}

/**
 * An icon a client may show for a tool, resource or prompt (2025-11-25): an `https:` or `data:`
 * URL, with its media type and sizes (`48x48`, `any`) when known.
 */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** What a tool's or prompt's schema option takes. */
export type SchemaOption = Schema | SchemaShape | JsonSchema | undefined;

export interface ToolOptions<I extends SchemaOption, O extends SchemaOption> {
  title?: string;
  description?: string;
  /**
   * Arguments schema: zod 4, valibot wrapped with `toStandardJsonSchema()`, a shape of them
   * (`{ text: z.string() }`), or a plain JSON Schema (advertised, not validated). It must describe
   * an object (`type: "object"`, as MCP requires); anything else is refused at registration.
   * Validated before the handler runs; invalid arguments are answered -32602.
   * @default { type: 'object' } (any arguments)
   */
  inputSchema?: I;
  /**
   * Structured-result schema, an object schema as `inputSchema` is; the handler's
   * `structuredContent` is validated against it.
   */
  outputSchema?: O;
  /**
   * Whether calls may run as tasks that outlive their request (the tasks extension): `optional`
   * when the client asks for one, `required` (a client that cannot is refused), `forbidden`.
   * @default 'forbidden'
   */
  taskSupport?: 'forbidden' | 'optional' | 'required';
  /**
   * When such a call becomes a task: `immediate`, before the handler runs; `manual`, when the
   * handler calls `ctx.detach()` (after asking for input the request's own way, say).
   * @default 'immediate'
   */
  taskStart?: 'immediate' | 'manual';
  /**
   * Whether a task of this tool may run again when its runner is lost (a crash, a deploy, a
   * paused process whose lease lapsed): `attempts` runs in all, each from the start (with the
   * input already answered). Past them, or without it, such a task is answered `failed`
   * (`data.reason: 'instance-lost'`). @default { attempts: 3 } with `annotations.idempotentHint:
   * true`, else { attempts: 1 }
   */
  retry?: { attempts: number };
  annotations?: JsonObject;
  /** Icons a client may show for the tool (2025-11-25). */
  icons?: Icon[];
  /**
   * Scopes a caller's token must grant to use this (with authorization on): a call without them
   * is answered 403 with an `insufficient_scope` challenge. @default none
   */
  scopes?: readonly string[];
  /**
   * Who sees it: the scopes a caller's token must grant, or a predicate of the caller's
   * `AuthInfo`. Others do not find it in lists, and to them it does not exist (a call is one of
   * an unknown name, not a 403). @default everyone
   */
  visibleTo?: VisibleTo;
  _meta?: JsonObject;
}

/** The names `tool()` accepts in its options; anything else is refused (see `checkOptionKeys`). */
export const TOOL_OPTION_KEYS = optionKeys<ToolOptions<SchemaOption, SchemaOption>>()([
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'taskSupport',
  'taskStart',
  'retry',
  'annotations',
  'icons',
  'scopes',
  'visibleTo',
  '_meta',
]);

/** A tool's handler: validated arguments and the request's context. */
export type ToolHandler<I> = (
  args: Infer<I>,
  ctx: RequestContext,
) => ToolResult | Promise<ToolResult>;

export interface ResourceOptions {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  /** Icons a client may show for the resource (2025-11-25). */
  icons?: Icon[];
  /**
   * Scopes a caller's token must grant to read it (with authorization on): a call without them
   * is answered 403 with an `insufficient_scope` challenge. @default none
   */
  scopes?: readonly string[];
  /**
   * Who sees it: the scopes a caller's token must grant, or a predicate of the caller's
   * `AuthInfo`. Others do not find it in lists, and to them it does not exist (a call is one of
   * an unknown name, not a 403). @default everyone
   */
  visibleTo?: VisibleTo;

  _meta?: JsonObject;
}

/** The names `resource()` accepts in its options. */
export const RESOURCE_OPTION_KEYS = optionKeys<ResourceOptions>()([
  'title',
  'description',
  'mimeType',
  'size',
  'annotations',
  'icons',
  'scopes',
  'visibleTo',
  '_meta',
]);

/** The options of `resourceTemplate()`: a resource's, and completions per template variable. */
export interface ResourceTemplateOptions extends ResourceOptions {
  complete?: Record<string, CompleteFn>;
}

/** The names `resourceTemplate()` accepts in its options. */
export const TEMPLATE_OPTION_KEYS = optionKeys<ResourceTemplateOptions>()([
  ...RESOURCE_OPTION_KEYS,
  'complete',
]);

export interface PromptOptions<A extends Schema | SchemaShape | undefined> {
  title?: string;
  description?: string;
  /** Arguments as an object schema (or shape) of string properties; advertised as the prompt's `arguments` list. */
  argsSchema?: A;
  /** Completion per argument name. */
  complete?: Record<string, CompleteFn>;
  /** Icons a client may show for the prompt (2025-11-25). */
  icons?: Icon[];
  /**
   * Scopes a caller's token must grant to get it (with authorization on): a call without them
   * is answered 403 with an `insufficient_scope` challenge. @default none
   */
  scopes?: readonly string[];
  /**
   * Who sees it: the scopes a caller's token must grant, or a predicate of the caller's
   * `AuthInfo`. Others do not find it in lists, and to them it does not exist (a call is one of
   * an unknown name, not a 403). @default everyone
   */
  visibleTo?: VisibleTo;
  _meta?: JsonObject;
}

/** The names `prompt()` accepts in its options. */
export const PROMPT_OPTION_KEYS = optionKeys<PromptOptions<undefined>>()([
  'title',
  'description',
  'argsSchema',
  'complete',
  'icons',
  'scopes',
  'visibleTo',
  '_meta',
]);

/** A prompt's handler: validated arguments and the request's context. */
export type PromptHandler<A> = (
  args: Infer<A>,
  ctx: RequestContext,
) => PromptResult | Promise<PromptResult>;

/** Removes a registered tool, resource, template or prompt (and tells listeners the list changed). */
export interface Registration {
  remove(): void;
}
