/**
 * An access token the way a client gets one: registered at the authorization server, signed in
 * through Chromium as `username`, the code exchanged with PKCE, for `resource` (RFC 8707).
 */
import type { Browser } from 'playwright-core';
import { signIn } from './browser.ts';
import {
  authorizationUrl,
  codeOf,
  exchangeCode,
  fetchMetadata,
  pkce,
  registerPublicClient,
} from './oauth-client.ts';

export async function signedInToken(
  issuer: string,
  browser: Browser,
  redirectUri: string,
  resource: string,
  username = 'alice',
  scope = 'mcp:tools',
): Promise<string> {
  const metadata = await fetchMetadata(issuer);
  const registered = await registerPublicClient(metadata, redirectUri);
  const { verifier, challenge } = await pkce();
  const redirect = await signIn(
    browser,
    authorizationUrl(metadata, {
      clientId: registered.client_id,
      redirectUri,
      resource,
      scope,
      challenge,
    }),
    { redirectUri, username },
  );
  const tokens = await exchangeCode(metadata, {
    clientId: registered.client_id,
    redirectUri,
    code: codeOf(redirect),
    verifier,
    resource,
  });
  return tokens.access_token;
}
