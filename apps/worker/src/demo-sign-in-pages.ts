/**
 * The HTML of the demo sign-in: the page frame with its DEMO banner, and the consent form that
 * lets anyone pick a demo user. Everything interpolated goes through `html`, since the client's
 * name and redirect host come from a self-registered client.
 */
import type { ConsentDescription } from '@cloudflare/workers-oauth-provider';
import { DEMO_USERS } from './oauth-accounts.ts';

export const html = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function page(title: string, body: string, status = 200, headers = new Headers()): Response {
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

export function consentPage(
  details: ConsentDescription,
  handle: string,
  headers: Headers,
): Response {
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
