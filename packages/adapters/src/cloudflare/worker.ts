/**
 * The stateless Worker entry and the handler options workerd needs.
 *
 * @module
 */
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import { toWebResponse } from '../shared/light-response.ts';
import type { FetchHandler } from '../shared/types.ts';
import { markClient, withClient } from './client-address.ts';
import { type WorkerAuth, withPrincipal } from './principal.ts';

export type { FetchHandler } from '../shared/types.ts';

/** The part of the Workers `ExecutionContext` the entry uses. */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
  /** What an authenticating layer in front (workers-oauth-provider) passed on. */
  readonly props?: unknown;
}

/** A module Worker's default export. */
export interface WorkerEntry<Env> {
  fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response>;
}

/**
 * Handler options for workerd: answer SSE as soon as a request is still running (`streamAfterMs`)
 * and write a keep-alive every `keepAliveMs`, the bound on noticing a departed client. No tasks
 * (`tasks: false`): an isolate cannot keep a handler running after its response, so a Worker's
 * own handler neither offers the tasks extension nor creates a task; tasks run in Durable Objects
 * (`defineSessionObject` turns them on, and `createSessionWorker`'s `tasks` routes to them).
 */
export const WORKERD_HANDLER_OPTIONS = {
  streamAfterMs: 0,
  keepAliveMs: 5_000,
  tasks: false,
} as const;

/** The options of {@link createWorker}. */
export interface WorkerOptions<Env> {
  /** The principal of a request, when the Worker sits behind an authenticating layer. */
  auth?: WorkerAuth<Env>;
}

const WORKER_OPTION_KEYS = optionKeys<WorkerOptions<unknown>>()(['auth']);

/**
 * A module Worker serving `build(env)`'s handler. `build` runs once per isolate, on the first
 * request (bindings and secrets are only known then), not per request.
 *
 * @example
 * ```ts
 * export default createWorker((env: Env) =>
 *   createMcpHandler(server, { ...WORKERD_HANDLER_OPTIONS, sessions: false, requestState: { secret: env.MCP_STATE_SECRET } }),
 * );
 * ```
 */
export function createWorker<Env>(
  build: (env: Env) => FetchHandler,
  options: WorkerOptions<Env> = {},
): WorkerEntry<Env> {
  checkOptionKeys(options, WORKER_OPTION_KEYS, 'createWorker()');
  let handler: FetchHandler | undefined;
  const principal = options.auth;
  return {
    async fetch(request, env, ctx) {
      handler ??= build(env);
      const auth = principal ? await principal(request, env, ctx) : undefined;
      const entry = handler[HANDLE];
      // A core handler takes the principal directly; an app (Hono's mcp() with principalOf)
      // reads it from the header, which carries only what this Worker vouches for.
      if (!entry) return handler.fetch(markClient(withPrincipal(request, auth)));
      return toWebResponse(await entry.call(handler, withClient(request), false, auth));
    },
  };
}
