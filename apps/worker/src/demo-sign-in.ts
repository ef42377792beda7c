/**
 * The demo sign-in and consent flow, the provider's `defaultHandler`: `/authorize` (GET shows the
 * consent page, POST approves or denies it and completes the grant), plus `/health` and a home
 * page. A DEMO: anyone may act as any user of `DEMO_USERS`, so it answers on loopback only unless
 * `DEMO_SIGN_IN` is "on".
 */
import {
  AuthorizationError,
  type AuthRequest,
  CimdFetchError,
} from '@cloudflare/workers-oauth-provider';
import { consentPage, html, page } from './demo-sign-in-pages.ts';
import { DEMO_USERS, type Props } from './oauth-accounts.ts';
import type { OAuthEnv } from './oauth-env.ts';

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
export const defaultHandler = {
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
