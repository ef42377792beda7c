export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  DEFAULT_SCOPES,
  startAuthorizationServer,
} from './authorization-server.ts';
export {
  type CallbackServer,
  CHROMIUM_PATH,
  launchChromium,
  type SignInOptions,
  signIn,
  startCallbackServer,
} from './browser.ts';
export * from './oauth-client.ts';
