import type { AuthInfo } from '../auth/auth-info.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { RequestContext } from './context.ts';
import type { Endpoint } from './endpoint.ts';
import { complete, getPrompt, readResource } from './features.ts';
import { listResult } from './lists.ts';
import type { ListName, Scoped } from './registry.ts';
import { grants } from './resource-server.ts';
import { getSkill, listSkills, readDirectory } from './skill-methods.ts';
import { sees } from './visibility.ts';

/** What a method gets: the request's context, which also knows the endpoint serving it. */
export interface MethodContext extends RequestContext {
  readonly endpoint: Endpoint;
  /**
   * Who the request counts against for quotas: its token's principal, else its client address
   * (`undefined` when the runtime gives none).
   */
  readonly client: string | undefined;
  /** A failure the client is told of in general terms: its detail goes to the request log. */
  noteFailure(error: unknown): void;
  /** Progress of the task the call became (`ContextBase.taskProgress`). */
  taskProgress?(taskId: string, progress: number, total?: number, message?: string): void;
}

/**
 * A method's result, or a promise of it when it has something to wait for; `undefined` when the
 * method answered itself (a stream that ended with the exchange).
 */
export type Method<C extends MethodContext = MethodContext> = (
  ctx: C,
  params: JsonObject,
) => JsonObject | undefined | Promise<JsonObject | undefined>;

export interface MethodSpec<C extends MethodContext = MethodContext> {
  readonly run: Method<C>;
  /** The result is a list, a read or a discovery: 2026-07-28 adds cache hints to it. */
  readonly cacheable?: boolean;
}

function list(kind: ListName, field: string): MethodSpec {
  return {
    run: (ctx, params) => {
      const endpoint = ctx.endpoint;
      const registry = endpoint.registry;
      // Hidden: what the caller may not use is not listed (only with a principal to ask about).
      const hide = endpoint.resourceServer?.hideUnauthorized === true && ctx.auth !== undefined;
      const admits =
        hide || registry.restricted
          ? (entry: Scoped) => admitted(entry, ctx.auth, hide)
          : undefined;
      return listResult(registry, kind, field, params.cursor, endpoint.pageSize, admits);
    },
    cacheable: true,
  };
}

/** Whether a list shows `entry` to `auth`: it sees it and, with `hide`, may use it. */
function admitted(entry: Scoped, auth: AuthInfo | undefined, hide: boolean): boolean {
  return sees(entry.visible, auth) && (!hide || grants(auth, entry.scopes));
}

/**
 * The one method table of the server features, served alike by both eras; each era spreads it
 * into its own table next to its era-only methods, and wraps every result in its own finish step
 * (`EraRules`). `tools/call` is each era's `taskToolsCall()` (`tasks/tools-call.ts`): a tool may
 * run as a task, which the eras ask for and answer differently.
 */
export const FEATURE_METHODS: Readonly<Record<string, MethodSpec>> = {
  'prompts/get': { run: (ctx, params) => getPrompt(ctx.endpoint.registry, params, ctx) },
  'completion/complete': {
    run: (ctx, params) => complete(ctx.endpoint.registry, params, ctx.auth),
  },
  'resources/read': {
    run: (ctx, params) => readResource(ctx.endpoint.registry, params.uri, ctx),
    cacheable: true,
  },
  'tools/list': list('tools', 'tools'),
  'resources/list': list('resources', 'resources'),
  'resources/templates/list': list('templates', 'resourceTemplates'),
  'prompts/list': list('prompts', 'prompts'),
  // The skills extension (SEP-2640), served once a skill is registered.
  'skills/list': { run: listSkills, cacheable: true },
  'skills/get': { run: getSkill, cacheable: true },
  'resources/directory/read': { run: readDirectory },
};
