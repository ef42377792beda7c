import { type AuthInfo, InvalidTokenError, type McpServer, type TaskOptions } from '@edge-mcp/core';
import {
  checkOptionKeys,
  classifyEra,
  DEFAULTS,
  HANDLE,
  HEADER,
  optionKeys,
  pathOf,
  type TaskRoute,
  taskRoute,
} from '@edge-mcp/core/adapter';
import { toWebResponse } from '../shared/light-response.ts';
import type { FetchHandler } from '../shared/types.ts';
import { markClient, withClient } from './client-address.ts';
import { type WorkerAuth, withPrincipal } from './principal.ts';
import {
  admitSession,
  quotaKey,
  refusalMessage,
  type SessionCaps,
  type SessionLimits,
  sessionCaps,
  settleAdmission,
} from './session-admission.ts';
import { objectIdOf } from './session-id.ts';
import type { WorkerEntry } from './worker.ts';
import { answered, bodyText, declaredOver, refusal } from './worker-answers.ts';
import type { DurableObjectNamespace } from './workers-types.ts';

export type { SessionLimits } from './session-admission.ts';

/** Where a session Worker's 2026-07-28 tasks run; see {@link SessionWorkerOptions.tasks}. */
export interface WorkerTasks {
  /**
   * The server the objects serve (the same tools as `build`'s handler): its tools' `taskSupport`
   * tells which calls may become tasks.
   */
  server: McpServer;
  /**
   * The namespace whose objects run tasks, one new object per task.
   * @default the `sessions` namespace (the `defineSessionObject` class hosts tasks too)
   */
  objects?: DurableObjectNamespace;
}

/**
 * The options the isolate's handler needs for the Worker's routing, handed to `build` to spread
 * into `createMcpHandler`'s options: `tasks: false` without a tasks namespace (the isolate cannot
 * run tasks, so it does not offer them), `tasks: {}` with one (the isolate answers
 * `server/discover`, which then offers the extension, and refuses `tasks/*` it cannot route).
 */
export interface IsolateOptions {
  readonly tasks: false | TaskOptions;
}

export interface SessionWorkerOptions<Env> {
  /** The Durable Object namespace bound to the class from `defineSessionObject`. */
  sessions(env: Env): DurableObjectNamespace;
  /**
   * The handler for everything that is not a legacy session request (2026-07-28 requests above
   * all), built once per isolate. Give it legacy on with a session manager (the default), so a
   * legacy request without a session id gets its 400; spread `isolate` into its options (over
   * `WORKERD_HANDLER_OPTIONS`), so it offers tasks exactly when the Worker can run them.
   */
  build(env: Env, isolate: IsolateOptions): FetchHandler;
  /**
   * 2026-07-28 tasks, run in Durable Objects (called once per isolate; `undefined`: none). A
   * `tools/call` that may become a task (a tool with `taskSupport` and a request declaring the
   * `io.modelcontextprotocol/tasks` extension) goes to a new object, where the task lives from
   * then on; `tasks/get|update|cancel` go to the object the task id in `Mcp-Name` names. Without
   * it, task tools run as plain calls in the isolate and the extension is not offered.
   */
  tasks?(env: Env): WorkerTasks | undefined;
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
  /**
   * Caps on legacy sessions (called once per isolate; `undefined`: none, each session is its own
   * object and nothing counts them). Each `initialize` is first admitted by the registry, against
   * `maxSessions` for the deployment and `maxSessionsPerPrincipal` for its principal (the `auth`
   * principal, else `CF-Connecting-IP`). At a cap the oldest idle session makes room (a
   * principal's own, at its quota); when none is idle the answer is 429 (`session-quota`) or 503
   * (`session-limit`) with Retry-After. Every `initialize` passes the one registry object; the
   * session's other requests do not. @default undefined
   */
  sessionLimits?(env: Env): SessionLimits | undefined;
}

const SESSION_WORKER_OPTION_KEYS = optionKeys<SessionWorkerOptions<unknown>>()([
  'sessions',
  'build',
  'tasks',
  'maxBodyBytes',
  'path',
  'auth',
  'sessionLimits',
]);

/**
 * A Worker that serves 2026-07-28 requests statelessly in the isolate and sends every legacy
 * session request to the Durable Object named by its session id; an `initialize` creates a new
 * object. The request goes to the object as it came (its body and signal), and the object's
 * response streams back as it comes, so a client that leaves cancels the handler in the object.
 * The era is the core's rule (`classifyEra`), read from the header first and, for a legacy POST
 * without a session, from the body.
 */
export function createSessionWorker<Env>(options: SessionWorkerOptions<Env>): WorkerEntry<Env> {
  checkOptionKeys(options, SESSION_WORKER_OPTION_KEYS, 'createSessionWorker()');
  let handler: FetchHandler | undefined;
  let tasks: WorkerTasks | undefined;
  let caps: SessionCaps | undefined;
  const limit = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const path = options.path ?? DEFAULTS.path;
  return {
    async fetch(incoming, env, ctx) {
      if (!handler) {
        tasks = options.tasks?.(env);
        caps = sessionCaps(options.sessionLimits?.(env));
        handler = options.build(env, { tasks: tasks ? {} : false });
      }
      // Another path is the app's business, but a principal header a client sent is never
      // passed on (an app that decodes /%6Dcp to /mcp would otherwise believe it).
      if (pathOf(incoming.url) !== path) {
        const forwarded = withPrincipal(incoming, undefined);
        return answered(forwarded, await handler.fetch(forwarded));
      }
      let auth: AuthInfo | InvalidTokenError | undefined;
      try {
        auth = options.auth ? await options.auth(incoming, env, ctx) : undefined;
      } catch (error) {
        // The handler that serves the request answers the rejection (and logs it).
        if (!(error instanceof InvalidTokenError)) throw error;
        auth = error;
      }
      // What goes to a session's object carries the principal the Worker vouches for, never one
      // a client made up.
      const request = withPrincipal(incoming, auth);
      // A body declared over the limit is the handler's to refuse (its 413 is in its log).
      if (request.method === 'POST' && declaredOver(request, limit))
        return serve(handler, request, auth);
      const modern = classifyEra(request.headers) === 'modern';
      const sessionId = request.headers.get(HEADER.sessionId);
      if (!modern && sessionId !== null) {
        const namespace = options.sessions(env);
        const objectId = objectIdOf(namespace, sessionId);
        // An id no object can hold: the isolate's handler answers it as the unknown id it is.
        if (objectId === undefined) return serve(handler, request, auth);
        if (request.method !== 'POST') return namespace.get(objectId).fetch(request);
        // The body is read here, not streamed on: an object that answers before reading it
        // (401, 406, …) left workerd piping into a finished subrequest, which broke the Worker's
        // next request ("Can't read from request stream after response has been sent").
        const body = await bodyText(handler, request, limit);
        if (body instanceof Response) return body;
        return namespace.get(objectId).fetch(new Request(request, { body }));
      }
      if (modern && tasks && request.method === 'POST')
        return routeTasks(handler, tasks.objects ?? options.sessions(env), tasks.server, request, {
          auth,
          limit,
        });
      if (modern || request.method !== 'POST') return serve(handler, request, auth);
      // A legacy POST without a session: an initialize opens a session in a new object.
      const text = await bodyText(handler, request, limit);
      if (text instanceof Response) return text;
      const forwarded = new Request(request, { body: text });
      if (!isLegacyInitialize(request, text)) return serve(handler, forwarded, auth);
      const namespace = options.sessions(env);
      const object = namespace.newUniqueId();
      if (!caps) return namespace.get(object).fetch(forwarded);
      const refused = await admitSession(caps, namespace, object, quotaKey(request, auth));
      if (refused) {
        const reason = refused.scope === 'principal' ? 'session-quota' : 'session-limit';
        const id = (parse(text) as { id?: string | number }).id;
        return refusal(handler, forwarded, reason, refusalMessage(refused), id);
      }
      const opened = await namespace.get(object).fetch(forwarded);
      await settleAdmission(caps, object, opened.headers.get(HEADER.sessionId));
      return opened;
    },
  };
}

/**
 * A 2026-07-28 POST when tasks run in objects: a call that may become a task goes to a new
 * object, `tasks/*` to the object its task id names; everything else, and a task id no object of
 * the namespace can hold, is served in the isolate (whose handler answers that id "not found",
 * after the checks the protocol puts first: headers, the extension declared).
 */
async function routeTasks(
  handler: FetchHandler,
  objects: DurableObjectNamespace,
  server: McpServer,
  request: Request,
  { auth, limit }: { auth: AuthInfo | InvalidTokenError | undefined; limit: number },
): Promise<Response> {
  let route: TaskRoute | undefined = taskRoute(server, request.headers);
  let forwarded = request;
  if (route?.kind === 'read-body') {
    const text = await bodyText(handler, request, limit);
    if (text instanceof Response) return text;
    forwarded = new Request(request, { body: text });
    route = taskRoute(server, request.headers, parse(text));
  }
  if (route?.kind === 'call') return objects.get(objects.newUniqueId()).fetch(forwarded);
  if (route?.kind === 'task') {
    const objectId = objectIdOf(objects, route.taskId);
    if (objectId !== undefined) return objects.get(objectId).fetch(forwarded);
  }
  return serve(handler, forwarded, auth);
}

/** The parsed body; `null` when it is not JSON (no task route then: the handler answers it). */
function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The Worker has matched the path: the core handler skips its own path check. */
async function serve(
  handler: FetchHandler,
  request: Request,
  auth: AuthInfo | InvalidTokenError | undefined,
): Promise<Response> {
  const entry = handler[HANDLE];
  if (!entry) return answered(request, await handler.fetch(markClient(request)));
  const answer = await entry.call(handler, withClient(request), true, auth);
  return answered(request, toWebResponse(answer));
}

function isLegacyInitialize(request: Request, text: string): boolean {
  const message = parse(text);
  // An initialize carrying modern _meta is a modern request (answered 404 by the handler).
  return (
    (message as { method?: unknown } | null)?.method === 'initialize' &&
    classifyEra(request.headers, message) === 'legacy'
  );
}
