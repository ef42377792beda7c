/** The legacy handshake, over HTTP or straight into a handler. */
import { initializeParams, legacy, notification } from './legacy.ts';
import { CLIENT_INFO, type Implementation, LEGACY, MCP_URL } from './protocol.ts';

/** A server to talk to: the URL of its endpoint, or a handler called in-process. */
export type Endpoint = string | { fetch(request: Request): Promise<Response> };

/** Sends `init` with `fetch(url, init)`, or to a handler as a `Request` to MCP_URL. */
export function send(to: Endpoint, init: RequestInit): Promise<Response> {
  return typeof to === 'string' ? fetch(to, init) : to.fetch(new Request(MCP_URL, init));
}

export interface Initialized {
  /** The Mcp-Session-Id; undefined when the server serves the legacy revisions without sessions. */
  session: string | undefined;
  /** The initialize result. */
  result: Record<string, any>;
}

/** initialize, then notifications/initialized; throws when either is refused. */
export async function initialize(
  to: Endpoint,
  version = LEGACY,
  capabilities: Record<string, unknown> = {},
  clientInfo: Implementation = CLIENT_INFO,
): Promise<Initialized> {
  const response = await send(
    to,
    legacy('initialize', initializeParams(version, capabilities, clientInfo)),
  );
  const text = await response.text();
  if (response.status !== 200) throw new Error(`initialize: ${response.status} ${text}`);
  const session = response.headers.get('mcp-session-id') ?? undefined;
  const initialized = await send(to, notification('notifications/initialized', undefined, session));
  const refusal = await initialized.text();
  if (!initialized.ok)
    throw new Error(`notifications/initialized: ${initialized.status} ${refusal}`);
  return { session, result: JSON.parse(text).result };
}

/** `initialize` on a server that keeps sessions: the session id (throws without one). */
export async function openSession(
  to: Endpoint,
  version = LEGACY,
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const { session } = await initialize(to, version, capabilities);
  if (session === undefined) throw new Error('initialize answered without an Mcp-Session-Id');
  return session;
}
