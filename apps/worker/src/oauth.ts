/**
 * The example MCP server as a Cloudflare Worker behind `@cloudflare/workers-oauth-provider`: the
 * provider is the OAuth 2.1 authorization server (metadata, dynamic client registration, token
 * endpoint, PKCE) and guards `/mcp`; edge-mcp serves the MCP endpoint as the provider's
 * `apiHandler`, with legacy sessions in Durable Objects bound to the user who signed in.
 *
 *   client ──POST /mcp (no token)──▶ provider: 401 + WWW-Authenticate resource_metadata=…
 *          ──GET /.well-known/oauth-protected-resource/mcp──▶ provider (RFC 9728)
 *          ──GET /.well-known/oauth-authorization-server──▶ provider (RFC 8414)
 *          ──POST /register──▶ provider (RFC 7591)
 *          ──GET /authorize (browser)──▶ defaultHandler below: DEMO sign-in + consent
 *          ──POST /token──▶ provider: access token for this resource (RFC 8707)
 *          ──POST /mcp (Bearer)──▶ provider checks the token, sets ctx.props / ctx.auth
 *                                   ──▶ createSessionWorker({ auth }) ──▶ ctx.auth in tools
 *                                                              └──▶ session's Durable Object
 *
 * The sign-in page is a DEMO: anyone may pick any user of a fixed list, without a password.
 * Replace `DEMO_USERS` and the form with real sign-in (your own, or an upstream provider through
 * the provider's `beginUpstream`/`finishUpstream`) before you deploy anything real. It refuses to
 * answer on a host that is not loopback unless `DEMO_SIGN_IN` is "on".
 *
 * Run it: `pnpm start:oauth` (wrangler dev -c wrangler.oauth.jsonc), then point an MCP client at
 * http://127.0.0.1:8787/mcp.
 */
import {
  AuthorizationError,
  type AuthRequest,
  CimdFetchError,
  type ConsentDescription,
  type OAuthHelpers,
  OAuthProvider,
} from '@cloudflare/workers-oauth-provider';
import {
  createSessionWorker,
  type DurableObjectNamespace,
  defineSessionObject,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { type AuthInfo, createMcpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import {
  createExampleServer,
  exampleOptions,
  requestLogger,
  sessionLogger,
} from '@edge-mcp/example-server/example';

export interface OAuthEnv {
  MCP_SESSIONS: DurableObjectNamespace;
  SESSION_REGISTRY: DurableObjectNamespace;
  /** The provider's storage: clients, grants, tokens (hashed), encrypted props. */
  OAUTH_KV: unknown;
  /** Set by the provider before it calls a handler: parseAuthRequest, completeAuthorization … */
  OAUTH_PROVIDER: OAuthHelpers;
  /**
   * This deployment's MCP endpoint, the tokens' audience (RFC 8707) and the RFC 9728 `resource`:
   * e.g. https://edge-mcp-example-oauth.<you>.workers.dev/mcp. `pnpm start:oauth` sets it to
   * http://HOST:PORT/mcp (default http://127.0.0.1:8787/mcp).
   */
  MCP_RESOURCE_URL?: string;
  /** "on" lets the demo sign-in page answer on a host that is not loopback (a deployment). */
  DEMO_SIGN_IN?: string;
  /** Comma-separated host names besides loopback, e.g. the workers.dev name of the deployment. */
  ALLOWED_HOSTS?: string;
  /** Origins allowed to call from a browser (comma-separated, or *). */
  MCP_CORS_ORIGINS?: string;
  /** HMAC key of input-required requestState; set it (wrangler secret put) so every isolate shares it. */
  MCP_STATE_SECRET?: string;
  /** Keep-alive interval in ms. Default 2500. */
  KEEP_ALIVE_MS?: string;
  /** Session idle timeout in ms. Default 600000 (10 minutes). */
  IDLE_TIMEOUT_MS?: string;
}

/**
 * The demo's users and the scopes each may be granted: the only "accounts" the sign-in page
 * offers. NOT a user database.
 */
export const DEMO_USERS: Readonly<Record<string, readonly string[]>> = {
  alice: ['mcp:tools', 'mcp:admin'],
  bob: ['mcp:tools'],
};

/** Every scope the authorization server can grant (RFC 8414 `scopes_supported`). */
const SCOPES = ['mcp:tools', 'mcp:admin'];
/** What any access needs: named in the 401 and the RFC 9728 metadata, so clients ask for it first. */
const REQUIRED_SCOPES = ['mcp:tools'];

/** What `completeAuthorization` stores with the grant; the provider hands it back as `ctx.props`. */
interface Props {
  userId: string;
}

/**
 * The principal of a request the provider let through: `ctx.props` is what the sign-in page
 * stored, `ctx.auth` what the provider verified about the token (its scopes, expiry, client).
 * `undefined` when there are no props: the handler (whose `auth` option has no `verify`) then
 * answers 401 rather than serving the request anonymously.
 */
export function principalFromProvider(ctx: { readonly props?: unknown }): AuthInfo | undefined {
  const props = ctx.props as Partial<Props> | undefined;
  if (typeof props?.userId !== 'string') return undefined;
  const token = (ctx as { auth?: { scope?: string[]; expiresAt?: number; clientId?: string } })
    .auth;
  return {
    principal: props.userId,
    scopes: token?.scope ?? [],
    expiresAt: token?.expiresAt,
    clientId: token?.clientId,
  };
}

/**
 * The example server plus two tools: one that tells who is calling, as the handler sees it, and
 * one that needs the `mcp:admin` scope (a token without it gets 403 `insufficient_scope`).
 */
function createServer() {
  const server = createExampleServer();
  server.tool(
    'auth_info',
    {
      description: 'Who is calling: the principal the OAuth provider signed in, scopes, client.',
    },
    (_args, ctx) =>
      JSON.stringify({
        principal: ctx.auth?.principal ?? null,
        scopes: ctx.auth?.scopes ?? [],
        clientId: ctx.auth?.clientId ?? null,
        session: ctx.session?.id ?? null,
        protocolVersion: ctx.protocolVersion,
      }),
  );
  server.tool(
    'admin_report',
    {
      description: 'Needs the mcp:admin scope (alice may grant it, bob may not).',
      scopes: ['mcp:admin'],
    },
    (_args, ctx) => `admin report for ${ctx.auth?.principal}`,
  );
  return server;
}

function log(line: string): void {
  console.error(line);
}

function options(env: OAuthEnv): McpHandlerOptions {
  // ALLOWED_HOSTS and MCP_CORS_ORIGINS as in every example; never the JWT verifier of MCP_AUTH_*.
  const { auth: _ignored, ...fromEnv } = exampleOptions(
    (name) => env[name as keyof OAuthEnv] as string | undefined,
    { host: 'localhost', port: 8787 },
  );
  const resource = resourceOf(env);
  return {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? 2500),
    ...fromEnv,
    // The provider checks the token; the handler gets the principal from the Worker (no `verify`).
    // The resource and its authorization server make the handler's own challenges agree with
    // the provider's: a 403 for a missing scope names the same metadata URL (step-up), and a
    // request that arrives without a principal is refused (401), never served anonymously.
    auth: {
      resource,
      authorizationServers: [new URL(resource).origin],
      scopesSupported: REQUIRED_SCOPES,
    },
    requestState: { secret: env.MCP_STATE_SECRET },
    onRequest: requestLogger(log),
  };
}

/** One legacy session per object; it stores the principal that opened it. */
export const McpSession = defineSessionObject((env: OAuthEnv) => ({
  server: createServer(),
  options: {
    ...options(env),
    onSessionOpen: sessionLogger(log, 'session-open'),
    onSessionClose: sessionLogger(log, 'session-close'),
  },
  idleTimeoutMs: Number(env.IDLE_TIMEOUT_MS ?? 600_000),
  registry: env.SESSION_REGISTRY,
}));

export { SessionRegistry } from '@edge-mcp/adapters/cloudflare';

/**
 * The MCP endpoint, as the provider's `apiHandler`: it only ever sees requests whose token the
 * provider accepted for this resource. `auth` turns the provider's `ctx.props` into the
 * principal, which reaches `ctx.auth` in the isolate and, across the hop, the session's object.
 */
const mcp = createSessionWorker({
  sessions: (env: OAuthEnv) => env.MCP_SESSIONS,
  // Sessions capped per client and in all (the defaults: 1000 and 10000), counted by the registry.
  sessionLimits: (env: OAuthEnv) => ({ registry: env.SESSION_REGISTRY }),
  build: (env: OAuthEnv) => createMcpHandler(createServer(), options(env)),
  auth: (_request, _env, ctx) => principalFromProvider(ctx),
});

// --- the demo sign-in and consent page (the provider's defaultHandler) ----------------------------

const html = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, body: string, status = 200, headers = new Headers()): Response {
  headers.set('content-type', 'text/html; charset=utf-8');
  return new Response(
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${html(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em}
.demo{background:#fff3cd;border:2px solid #c69500;padding:.6em 1em;border-radius:6px}
fieldset{margin:1em 0}button{font-size:1em;padding:.4em 1em;margin-right:.5em}</style></head>
<body><p class="demo"><strong>DEMO SIGN-IN.</strong> This page is an example, not a login: anyone
can act as any user listed here, without a password. Replace it with real sign-in before you
deploy anything that matters.</p>
${body}</body></html>`,
    { status, headers },
  );
}

function consentPage(details: ConsentDescription, handle: string, headers: Headers): Response {
  const name = html(details.clientName);
  const users = Object.entries(DEMO_USERS)
    .map(
      ([user, allowed], index) =>
        `<label><input type="radio" name="user" value="${html(user)}"${index === 0 ? ' checked' : ''}> ${html(user)} <small>(may grant ${allowed.map(html).join(', ')})</small></label>`,
    )
    .join('<br>');
  const scopes = details.scope.length
    ? details.scope.map((scope) => `<code>${html(scope)}</code>`).join(', ')
    : '(none)';
  return page(
    `Authorize ${details.clientName}`,
    `<h1>Allow ${name} to use the edge-mcp example server?</h1>
<p>This app registered itself; its name is not verified. Access will be sent to
<strong>${html(details.redirectHost)}</strong>.</p>
${details.redirectIsLoopback ? '<p><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>' : ''}
<p>Scopes: ${scopes}</p>
<form method="post">
<input type="hidden" name="handle" value="${html(handle)}">
<fieldset><legend>Sign in as (demo users)</legend>${users}</fieldset>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    200,
    headers,
  );
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127(?:\.\d{1,3}){3}$/.test(hostname) ||
    hostname.endsWith('.localhost')
  );
}

/** GET shows the page (after the provider validated the request); POST takes its answer. */
async function authorize(request: Request, env: OAuthEnv): Promise<Response> {
  const oauth = env.OAUTH_PROVIDER;
  try {
    if (request.method === 'GET') {
      const authRequest: AuthRequest = await oauth.parseAuthRequest(request);
      const details = await oauth.describeConsent(authRequest);
      const consent = await oauth.beginConsent(authRequest);
      return consentPage(details, consent.handle, consent.headers);
    }
    if (request.method !== 'POST') return new Response(null, { status: 405 });
    const form = await request.formData();
    const handle = String(form.get('handle') ?? '');
    if (form.get('decision') !== 'approve') {
      const denied = await oauth.denyConsent(request, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const user = String(form.get('user') ?? '');
    const allowed = Object.hasOwn(DEMO_USERS, user) ? DEMO_USERS[user] : undefined;
    if (!allowed) return page('Unknown user', '<p>No such demo user.</p>', 400);
    const approved = await oauth.approveConsent(request, handle);
    // The request the provider kept (not one rebuilt from the form); the grant is what it asked
    // for and this user may have.
    const scope = approved.request.scope.filter((name) => allowed.includes(name));
    const props: Props = { userId: user };
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: user,
      metadata: { label: `demo user ${user}` },
      scope,
      props,
    });
    approved.headers.set('location', redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    if (error instanceof AuthorizationError && error.redirectTo)
      return Response.redirect(error.redirectTo, 302);
    if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
      const message =
        error instanceof AuthorizationError ? error.description : 'The app could not be verified.';
      return page('Cannot authorize', `<p>${html(message)}</p>`, 400);
    }
    throw error;
  }
}

/** Everything the provider does not serve itself: the sign-in page, a health check, a home page. */
const defaultHandler = {
  async fetch(request: Request, env: OAuthEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/health') return Response.json({ ok: true, runtime: 'workerd' });
    if (url.pathname === '/authorize') {
      if (!isLoopback(url.hostname) && env.DEMO_SIGN_IN !== 'on')
        return page(
          'Demo sign-in is off',
          '<p>The demo sign-in answers on loopback only. Put real sign-in here, or set the var DEMO_SIGN_IN to "on" to try the demo on a deployment.</p>',
          403,
        );
      return authorize(request, env);
    }
    if (url.pathname === '/')
      return page(
        'edge-mcp example behind workers-oauth-provider',
        `<h1>edge-mcp example (OAuth)</h1><p>The MCP endpoint is <code>${html(url.origin)}/mcp</code>; an MCP client discovers how to sign in from its 401.</p>`,
      );
    return new Response('Not found', { status: 404 });
  },
};

/** The canonical resource: MCP_RESOURCE_URL, else the default `pnpm start:oauth` serves. */
export function resourceOf(env: OAuthEnv): string {
  return env.MCP_RESOURCE_URL || 'http://127.0.0.1:8787/mcp';
}

/**
 * The provider, built once per isolate: its options are fixed at construction, and the resource
 * it guards comes from the environment (known only at the first request).
 */
function createProvider(env: OAuthEnv): OAuthProvider<OAuthEnv> {
  return new OAuthProvider<OAuthEnv>({
    apiRoute: '/mcp', // createSessionWorker's path; MCP_RESOURCE_URL must end in it
    apiHandler: mcp,
    defaultHandler,
    authorizeEndpoint: '/authorize',
    tokenEndpoint: '/token',
    clientRegistrationEndpoint: '/register',
    scopesSupported: SCOPES,
    // RFC 9728: served at /.well-known/oauth-protected-resource/mcp and named in every 401. The
    // authorization server is this Worker (the token endpoint's origin) unless listed here.
    resourceMetadata: { resource: resourceOf(env), resource_name: 'edge-mcp example' },
    requiredScopes: REQUIRED_SCOPES,
  });
}

let provider: OAuthProvider<OAuthEnv> | undefined;

export default {
  fetch(request: Request, env: OAuthEnv, ctx: unknown): Promise<Response> {
    provider ??= createProvider(env);
    return provider.fetch(request, env, ctx as never);
  },
};
