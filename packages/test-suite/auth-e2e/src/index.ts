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
export {
  type PageFile,
  type PageServer,
  type PageServerOptions,
  startPageServer,
} from './page-server.ts';
export { bundleSdkClient, SDK_GLOBAL } from './sdk-bundle.ts';
export { signedInToken } from './sign-in-token.ts';
