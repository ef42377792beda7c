import type { AuthInfo } from '@edge-mcp/core';
import {
  BodyTooLargeError,
  classifyEra,
  DEFAULTS,
  ErrorCode,
  errorMessage,
  HANDLE,
  HEADER,
  pathOf,
  readBody,
} from '@edge-mcp/core/adapter';
import { toWebResponse } from '../shared/light-response.ts';
import type { FetchHandler } from '../shared/types.ts';
import { type WorkerAuth, withPrincipal } from './principal.ts';
import { objectIdOf } from './session-id.ts';
import type { WorkerEntry } from './worker.ts';
import type { DurableObjectNamespace } from './workers-types.ts';

export interface SessionWorkerOptions<Env> {
  /** The Durable Object namespace bound to the class from `defineSessionObject`. */
  sessions(env: Env): DurableObjectNamespace;
  /**
   * The handler for everything that is not a legacy session request (2026-07-28 requests above
   * all), built once per isolate. Give it legacy on with a session manager (the default), so a
   * legacy request without a session id gets its 400.
   */
  build(env: Env): FetchHandler;
  /** Largest body read while routing a legacy POST. @default 4 MiB (`DEFAULTS.maxBodyBytes`) */
  maxBodyBytes?: number;
  /** The MCP endpoint's path; other paths go to `build`'s handler untouched. @default '/mcp' */
  path?: string;
  /**
   * The principal of a request, when the Worker sits behind an authenticating layer: with
   * `@cloudflare/workers-oauth-provider`, `(request, env, ctx) => ({ principal: ctx.props.userId,
   * scopes: … })`. It reaches the handler (`ctx.auth`) and the session's object, which binds the
   * session to it. @default undefined (the handlers authenticate on their own, if configured)
   */
  auth?: WorkerAuth<Env>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * A Worker that serves 2026-07-28 requests statelessly in the isolate and sends every legacy
 * session request to the Durable Object named by its session id; an `initialize` creates a new
 * object. The request goes to the object as it came (its body and signal), and the object's
 * response streams back as it comes, so a client that leaves cancels the handler in the object.
 * The era is the core's rule (`classifyEra`), read from the header first and, for a legacy POST
 * without a session, from the body.
 */
export function createSessionWorker<Env>(options: SessionWorkerOptions<Env>): WorkerEntry<Env> {
  let handler: FetchHandler | undefined;
  const limit = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const path = options.path ?? DEFAULTS.path;
  return {
    async fetch(incoming, env, ctx) {
      handler ??= options.build(env);
      if (pathOf(incoming.url) !== path) return handler.fetch(incoming);
      const auth = options.auth ? await options.auth(incoming, env, ctx) : undefined;
      // What goes to a session's object carries the principal the Worker vouches for, never one
      // a client made up.
      const request = withPrincipal(incoming, auth);
      const modern = classifyEra(request.headers) === 'modern';
      const sessionId = request.headers.get(HEADER.sessionId);
      if (!modern && sessionId !== null) {
        const namespace = options.sessions(env);
        const objectId = objectIdOf(namespace, sessionId);
        if (objectId === undefined)
          return failure(404, ErrorCode.SessionNotFound, 'Session not found');
        return namespace.get(objectId).fetch(request);
      }
      if (modern || request.method !== 'POST') return serve(handler, request, auth);
      // A legacy POST without a session: an initialize opens a session in a new object.
      let text: string;
      try {
        text = await readBody(request, limit);
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        return failure(413, ErrorCode.InvalidRequest, error.message);
      }
      const forwarded = new Request(request, { body: text });
      if (!isLegacyInitialize(request, text)) return serve(handler, forwarded, auth);
      const namespace = options.sessions(env);
      return namespace.get(namespace.newUniqueId()).fetch(forwarded);
    },
  };
}

/** The Worker has matched the path: the core handler skips its own path check. */
async function serve(
  handler: FetchHandler,
  request: Request,
  auth: AuthInfo | undefined,
): Promise<Response> {
  const entry = handler[HANDLE];
  if (!entry) return handler.fetch(request);
  const answer = await entry.call(handler, request, true, auth);
  return toWebResponse(answer);
}

function failure(status: number, code: number, message: string): Response {
  return new Response(errorMessage(undefined, { code, message }), {
    status,
    headers: JSON_HEADERS,
  });
}

function isLegacyInitialize(request: Request, text: string): boolean {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return false;
  }
  // An initialize carrying modern _meta is a modern request (answered 404 by the handler).
  return (
    (message as { method?: unknown } | null)?.method === 'initialize' &&
    classifyEra(request.headers, message) === 'legacy'
  );
}
