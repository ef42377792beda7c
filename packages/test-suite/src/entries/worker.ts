/**
 * The suite's app on workerd (wrangler dev with ../../wrangler.jsonc): 2026-07-28 in the isolate,
 * legacy sessions in Durable Objects, and the log collected in one more object so the isolate
 * and the session objects write to the same place.
 *
 * The `auth` fixture authenticates in the Worker (its `auth` option, as behind
 * workers-oauth-provider): the principal crosses to a session's object in PRINCIPAL_HEADER, whose
 * handler has the `auth` metadata but no `verify` (it trusts only what the Worker forwards), and
 * the isolate's Hono app reads it with `principalOf`.
 *
 * 2026-07-28 tasks run in objects of the session class (the Worker's `tasks`), one per task;
 * `TASKS=off` leaves the Worker without them (task tools then run as plain calls in the isolate).
 * `TASK_HEARTBEAT_MS` sets the objects' alarm heartbeat while a task runs.
 */
import {
  createSessionWorker,
  type DurableObjectNamespace,
  DurableObjectRateLimitStore,
  defineSessionObject,
  principalOf,
  sessionControl,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import {
  createSuiteApp,
  type FixtureKind,
  fixtureServer,
  type LogSink,
  logHooks,
  suiteAuth,
  suitePrincipal,
  suiteRateLimit,
} from '../fixture.ts';
import { logTasksTo } from '../fixture-tasks.ts';

interface Env {
  FIXTURE?: string;
  KEEP_ALIVE_MS?: string;
  IDLE_MS?: string;
  GRACE_MS?: string;
  TASKS?: string;
  TASK_HEARTBEAT_MS?: string;
  MAX_SESSIONS?: string;
  SESSION_QUOTA?: string;
  TASK_QUOTA?: string;
  MCP_SESSIONS: DurableObjectNamespace;
  SESSION_REGISTRY: DurableObjectNamespace;
  SUITE_LOG: DurableObjectNamespace;
  RATE_LIMITS: DurableObjectNamespace;
  STORE_CONTRACT: DurableObjectNamespace;
}

/** The log of the whole deployment: one object, lines kept in memory. */
export class SuiteLog {
  readonly #lines: unknown[] = [];
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'POST') {
      this.#lines.push(await request.json());
      return new Response(null, { status: 204 });
    }
    return Response.json(this.#lines);
  }
}

function remoteSink(env: Env): LogSink {
  const log = () => env.SUITE_LOG.get(env.SUITE_LOG.idFromName('log'));
  return {
    push: (line) => {
      log()
        .fetch(new Request('http://log/', { method: 'POST', body: JSON.stringify(line) }))
        .catch(() => {});
    },
    read: async () =>
      (await (await log().fetch(new Request('http://log/'))).json()) as Array<
        Record<string, unknown>
      >,
  };
}

/**
 * The isolate's own lines stay in its memory (a push from a request the client just cancelled
 * would be cancelled with it; wrangler dev runs one isolate); reading merges the objects' lines.
 */
function isolateSink(env: Env): LogSink {
  const lines: Array<Record<string, unknown>> = [];
  const remote = remoteSink(env);
  return {
    push: (line) => lines.push(line),
    read: async () => [...lines, ...(await remote.read())],
  };
}

function kindOf(env: Env): FixtureKind {
  return (env.FIXTURE ?? 'suite') as FixtureKind;
}

function handlerOptions(env: Env) {
  return {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? WORKERD_HANDLER_OPTIONS.keepAliveMs),
    disconnectGraceMs: Number(env.GRACE_MS ?? 30_000),
    requestState: { secret: 'edge-mcp-test-suite' },
    // The isolate and every session object take from the buckets of one object.
    rateLimit: suiteRateLimit(new DurableObjectRateLimitStore(env.RATE_LIMITS)),
    // Behind the Worker's authentication: the metadata and challenges, no token checked here.
    ...(kindOf(env) === 'auth' ? { auth: suiteAuth(false) } : {}),
  };
}

export const McpSession = defineSessionObject((env: Env) => {
  const sink = remoteSink(env);
  logTasksTo(sink);
  return {
    server: fixtureServer(kindOf(env)),
    options: { ...handlerOptions(env), ...logHooks(sink) },
    idleTimeoutMs: Number(env.IDLE_MS ?? 600_000),
    registry: env.SESSION_REGISTRY,
    tasks: {
      ...(env.TASK_HEARTBEAT_MS === undefined
        ? {}
        : { heartbeatMs: Number(env.TASK_HEARTBEAT_MS) }),
      // Counted across every object by the registry.
      ...(env.TASK_QUOTA === undefined ? {} : { maxActivePerPrincipal: Number(env.TASK_QUOTA) }),
      // Every run begun and ended, for the tests that count runs across restarts.
      onRun: (event) => sink.push({ kind: 'task-run', ...event }),
    },
  };
});

export { RateLimitObject, SessionRegistry } from '@edge-mcp/adapters/cloudflare';
export { StoreContract } from '../store-contract-object.ts';

export default createSessionWorker({
  sessions: (env: Env) => env.MCP_SESSIONS,
  // Every initialize is admitted by the registry (the caps are the defaults unless a test sets them).
  sessionLimits: (env: Env) => ({
    registry: env.SESSION_REGISTRY,
    maxSessions: env.MAX_SESSIONS === undefined ? undefined : Number(env.MAX_SESSIONS),
    maxSessionsPerPrincipal:
      env.SESSION_QUOTA === undefined ? undefined : Number(env.SESSION_QUOTA),
  }),
  // The authenticating layer in front: a bearer token of the table, or nobody.
  auth: (request: Request, env: Env) =>
    kindOf(env) === 'auth' ? suitePrincipal(request.headers.get('authorization')) : undefined,
  // Tasks in objects of the session class; the server tells the Worker which tools may run as tasks.
  tasks: (env: Env) =>
    env.TASKS === 'off'
      ? undefined
      : { server: fixtureServer(kindOf(env)), objects: env.MCP_SESSIONS },
  build: (env: Env, isolate) => {
    const kind = kindOf(env);
    const { app } = createSuiteApp(
      'workerd',
      kind,
      { ...handlerOptions(env), ...isolate },
      isolateSink(env),
      kind === 'auth' ? { auth: (c) => principalOf(c.req.raw) } : {},
    );
    // Operator routes for the Durable Object tests (a real deployment puts these behind auth).
    const control = sessionControl(env.MCP_SESSIONS, env.SESSION_REGISTRY);
    // The session-store contract, one fresh object per run of a case.
    app.post('/__store-contract', (c) =>
      env.STORE_CONTRACT.get(env.STORE_CONTRACT.idFromName(crypto.randomUUID())).fetch(c.req.raw),
    );
    app.post('/__close-all', async (c) => c.json({ closed: await control.closeAll('shutdown') }));
    app.get('/__inspect/:session', async (c) =>
      c.json(await control.inspect(c.req.param('session'), c.req.query('as'))),
    );
    app.post('/__close/:session', async (c) =>
      c.json({
        closed: await control.close(c.req.param('session'), 'shutdown', c.req.query('as')),
      }),
    );
    return app;
  },
});
