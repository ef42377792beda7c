/**
 * The SDK OAuth client provider the end-to-end tests drive: its "browser redirect" is a real
 * Chromium on the authorization server's pages (`authorize` signs in or consents and returns the
 * URL the browser was redirected to).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { codeOf } from '../src/index.ts';

export class ChromiumOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  /** The code the last sign-in brought back. */
  code: string | undefined;
  readonly authorizationUrls: URL[] = [];
  #state = '';

  readonly clientName: string;
  readonly redirectUri: string;
  readonly #authorize: (url: URL) => Promise<URL>;

  constructor(clientName: string, redirectUri: string, authorize: (url: URL) => Promise<URL>) {
    this.clientName = clientName;
    this.redirectUri = redirectUri;
    this.#authorize = authorize;
  }

  get redirectUrl(): string {
    return this.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    this.code = codeOf(await this.#authorize(url), this.#state);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no code verifier saved');
    return this.verifier;
  }
}
