/**
 * The stateless Worker entry and the handler options workerd needs.
 *
 * @module
 */
import type { FetchHandler } from '../shared/types.ts';

export type { FetchHandler } from '../shared/types.ts';

/** The part of the Workers `ExecutionContext` the entry uses. */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** A module Worker's default export. */
export interface WorkerEntry<Env> {
  fetch(request: Request, env: Env, ctx: WorkerContext): Promise<Response>;
}

/**
 * Handler options for workerd: answer SSE as soon as a request is still running (`streamAfterMs`)
 * and write a keep-alive every `keepAliveMs`, the bound on noticing a departed client.
 */
export const WORKERD_HANDLER_OPTIONS = { streamAfterMs: 0, keepAliveMs: 5_000 } as const;

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
export function createWorker<Env>(build: (env: Env) => FetchHandler): WorkerEntry<Env> {
  let handler: FetchHandler | undefined;
  return {
    async fetch(request, env) {
      handler ??= build(env);
      return handler.fetch(request);
    },
  };
}
