/**
 * The OAuth Worker's environment (its bindings and vars, see wrangler.oauth.jsonc) and the
 * resource it serves, read from it: shared by the MCP handler's options and the provider's.
 */
import type { OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import type { DurableObjectNamespace } from '@edge-mcp/adapters/cloudflare';

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

/** The canonical resource: MCP_RESOURCE_URL, else the default `pnpm start:oauth` serves. */
export function resourceOf(env: OAuthEnv): string {
  return env.MCP_RESOURCE_URL || 'http://127.0.0.1:8787/mcp';
}
