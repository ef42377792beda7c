import type { McpOptions } from '@edge-mcp/adapters/hono';
import {
  type AuthInfo,
  type AuthOptions,
  createMcpHandler,
  InvalidTokenError,
  type McpHandler,
  type McpHandlerOptions,
  type McpServer,
  type RateLimitOptions,
  type TokenRejection,
} from '@edge-mcp/core';
import type { RateLimitStore } from '@edge-mcp/core/sessions';
import {
  createExampleApp,
  createExampleServer,
  exampleOptions,
} from '@edge-mcp/example-server/example';
import type { Hono } from 'hono';
import * as z from 'zod';
import { createFixtureServer } from './conformance/fixture-server.ts';
import { addTaskTools } from './fixture-tasks.ts';
import { type LogSink, memorySink } from './log-sink.ts';

export { type LogSink, memorySink } from './log-sink.ts';

/**
 * Which server a target serves: the suite's (the example plus test hooks), the conformance
 * fixture, or the suite's server as an OAuth resource server (`auth`: bearer tokens checked
 * against `SUITE_TOKENS`).
 */
export type FixtureKind = 'suite' | 'conformance' | 'auth';

/** The bearer tokens the `auth` fixture accepts, and who each stands for. */
export const SUITE_TOKENS: ReadonlyMap<string, AuthInfo> = new Map([
  // Alice may also administer: she sees the example's `admin_scopes`, Bob does not.
  ['alice-token', { principal: 'alice', scopes: ['mcp:tools', 'mcp:admin'] }],
  ['bob-token', { principal: 'bob', scopes: ['mcp:tools'] }],
]);

/** The `auth` fixture's resource identifier (the same on every target, whatever its port). */
export const SUITE_RESOURCE = 'http://127.0.0.1/mcp';

/** Tokens the `auth` fixture refuses with a reason, as a JWT verifier would. */
export const SUITE_REFUSED_TOKENS: ReadonlyMap<string, TokenRejection> = new Map([
  ['expired-token', 'expired'],
  ['elsewhere-token', 'audience'],
]);

/**
 * The `auth` fixture's token check: the principal of a token in `SUITE_TOKENS`; an
 * `InvalidTokenError` for one in `SUITE_REFUSED_TOKENS`; `undefined` for any other.
 */
export function suiteVerify(token: string): AuthInfo | undefined {
  const rejection = SUITE_REFUSED_TOKENS.get(token);
  if (rejection) throw new InvalidTokenError(rejection);
  return SUITE_TOKENS.get(token);
}

/** `suiteVerify` of a request's `Authorization: Bearer <token>`; none without one. */
export function suitePrincipal(authorization: string | null): AuthInfo | undefined {
  const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
  return match ? suiteVerify(match[1] as string) : undefined;
}

/**
 * The `auth` option of the `auth` fixture: tokens checked against `SUITE_TOKENS`, or (`verify:
 * false`) only the metadata, for a handler behind a layer that authenticated the request (the
 * Worker in front of a session's Durable Object, Hono middleware).
 */
export function suiteAuth(verify = true): AuthOptions {
  return {
    ...(verify ? { verify: suiteVerify } : {}),
    resource: SUITE_RESOURCE,
    authorizationServers: ['http://127.0.0.1:9'],
    scopesSupported: ['mcp:tools'],
  };
}

/** The server of a fixture kind: the example plus test hooks and task tools, or the conformance fixture. */
export function fixtureServer(kind: FixtureKind): McpServer {
  if (kind === 'conformance') return createFixtureServer();
  const server = createExampleServer();
  server.tool(
    'caller',
    { description: 'Who the handler was told the caller is (test hook)' },
    (_args, ctx) => ctx.auth?.principal ?? 'anonymous',
  );
  // Seen by Bob alone, by a predicate of the caller (the scoped-list tests' other direction).
  server.tool(
    'bob_only',
    {
      description: 'Seen and called by bob alone (test hook)',
      visibleTo: (auth) => auth?.principal === 'bob',
    },
    () => 'for bob',
  );
  server.tool('touch', { description: 'Announces a tools/list change (test hook)' }, () => {
    server.notifyListChanged('tools');
    return 'touched';
  });
  server.tool(
    'poke',
    {
      description: 'Announces an update of a resource (test hook)',
      inputSchema: z.object({ uri: z.string() }),
    },
    ({ uri }) => {
      server.notifyResourceUpdated(uri);
      return 'poked';
    },
  );
  server.tool(
    'say',
    {
      description: 'Logs one message at a level (test hook)',
      inputSchema: z.object({ level: z.enum(['debug', 'info', 'error']) }),
    },
    ({ level }, ctx) => {
      ctx.log(level, `said at ${level}`);
      return 'said';
    },
  );
  server.tool(
    'flood',
    {
      description: 'Sends count progress notifications (test hook)',
      inputSchema: z.object({ count: z.number() }),
    },
    ({ count }, ctx) => {
      for (let i = 1; i <= count; i++)
        ctx.progress(i, count, `step ${i} of a long stream that fills the event log`);
      return `flooded ${count}`;
    },
  );
  server.tool(
    'drip',
    {
      description:
        'Sends count progress notifications ms apart, then answers; stops when aborted (test hook)',
      inputSchema: z.object({ count: z.number().int().min(1), ms: z.number().int().min(0) }),
    },
    async ({ count, ms }, ctx) => {
      const { signal } = ctx;
      for (let i = 1; i <= count; i++) {
        if (signal.aborted) throw signal.reason;
        ctx.progress(i, count, `drip ${i}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
          }
          signal.addEventListener('abort', done, { once: true });
        });
      }
      if (signal.aborted) throw signal.reason;
      return `dripped ${count}`;
    },
  );
  addGates(server);
  addTaskTools(server);
  return server;
}

/**
 * `gated` sends a progress notification, then waits for `open-gate` before it sends the next:
 * behind a proxy that holds events back, the client never sees the first and never opens the
 * gate (test hooks of the proxy matrix).
 */
function addGates(server: McpServer): void {
  const gates = new Map<string, () => void>();
  server.tool(
    'gated',
    {
      description: 'Sends count progress notifications, each after open-gate (test hook)',
      inputSchema: z.object({ gate: z.string(), count: z.number().int().min(1) }),
    },
    async ({ gate, count }, ctx) => {
      for (let step = 1; step <= count; step++) {
        ctx.progress(step, count, `step ${step}`);
        await new Promise<void>((resolve, reject) => {
          gates.set(`${gate}/${step}`, resolve);
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
        });
      }
      return `passed ${count} gates`;
    },
  );
  server.tool(
    'open-gate',
    {
      description: 'Lets gated send its next notification (test hook)',
      inputSchema: z.object({ gate: z.string(), step: z.number().int() }),
    },
    ({ gate, step }) => {
      const open = gates.get(`${gate}/${step}`);
      gates.delete(`${gate}/${step}`);
      open?.();
      return open ? 'opened' : 'no such gate';
    },
  );
}

/**
 * What a deployment sets through the environment, read as the example reads it
 * (`MCP_TRUST_PROXY`, `ALLOWED_HOSTS`), and `KEEP_ALIVE_MS` (the proxy matrix scales it down
 * with the proxies' idle limits).
 */
export function deployOptions(env: (name: string) => string | undefined): McpHandlerOptions {
  const { trustProxy, allowedHosts } = exampleOptions(env, { host: '127.0.0.1', port: 0 });
  const keepAlive = env('KEEP_ALIVE_MS');
  return {
    allowedHosts: allowedHosts ?? [],
    ...(trustProxy !== undefined ? { trustProxy } : {}),
    ...(keepAlive ? { keepAliveMs: Number(keepAlive) } : {}),
  };
}

/**
 * Handler hooks that write the request and session log the suite asserts on. Each line has `at`
 * (`Date.now()` when it was written: the processes of a cluster share the machine's clock, so a
 * merged log is in order and a test measures a remote abort against it).
 */
export function logHooks(
  sink: LogSink,
): Pick<McpHandlerOptions, 'onRequest' | 'onSessionOpen' | 'onSessionClose'> {
  return {
    onRequest: (event) => sink.push({ kind: 'request', ...event, at: Date.now() }),
    onSessionOpen: (event) =>
      sink.push({ kind: 'session-open', ...event, clientInfo: undefined, at: Date.now() }),
    onSessionClose: (event) =>
      sink.push({ kind: 'session-close', ...event, clientInfo: undefined, at: Date.now() }),
  };
}

/**
 * The app every runtime serves for the shared suite: the fixture server mounted in the example's
 * Hono app, plus `/__log` exposing the log. The `auth` fixture's handler verifies tokens itself
 * unless `options.auth` says otherwise; `mcpOptions` go to Hono's `mcp()` entry.
 */
/**
 * The suite's rate limit: calls of the tool `rate-probe` only (no such tool: the limit is checked
 * before dispatch, so a call within it is answered "unknown tool"), `burst` per principal, one
 * more every 20 s. Every runtime's handlers get it, with `store` where they must share buckets
 * (a Redis cluster's, the Durable Object's on workerd).
 */
export const RATE_PROBE = { tool: 'rate-probe', burst: 3 } as const;

export function suiteRateLimit(store?: RateLimitStore): RateLimitOptions {
  return {
    perTool: { [RATE_PROBE.tool]: { perSecond: 0.05, burst: RATE_PROBE.burst } },
    ...(store ? { store } : {}),
  };
}

export function createSuiteApp(
  runtime: string,
  kind: FixtureKind,
  options: McpHandlerOptions = {},
  sink: LogSink = memorySink(),
  mcpOptions: McpOptions = {},
): { app: Hono; handler: McpHandler } {
  const handler = createMcpHandler(fixtureServer(kind), {
    requestState: { secret: 'edge-mcp-test-suite' },
    rateLimit: suiteRateLimit(),
    ...(kind === 'auth' ? { auth: suiteAuth() } : {}),
    ...options,
    ...logHooks(sink),
  });
  const app = createExampleApp(handler, runtime, mcpOptions);
  app.get('/__log', async (c) => c.json(await sink.read()));
  return { app, handler };
}
