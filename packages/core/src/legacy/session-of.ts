import type { AuthInfo } from '../auth/auth-info.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Reply, refuse } from '../http/responses.ts';
import { ErrorCode, HEADER, LEGACY_VERSIONS } from '../protocol/constants.ts';
import type { Session } from '../sessions/session.ts';
import type { LegacyEndpoint } from './endpoint.ts';

/** The session a legacy request names, or the answer that refuses it. */
export type SessionLookup = Session | Reply | undefined;

/**
 * The session a legacy request names (`undefined` when the handler has no sessions), or the
 * answer that refuses it: 400 without a session id, 404 for an unknown one, 400 for a
 * MCP-Protocol-Version that names no legacy revision. A promise when the manager answers with one.
 */
export function sessionOf(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  auth: AuthInfo | undefined,
): SessionLookup | Promise<SessionLookup> {
  const manager = endpoint.sessions;
  if (!manager) return unsupportedVersion(request);
  const id = request.headers.get(HEADER.sessionId);
  if (id === null)
    return refuse(
      'session-required',
      400,
      ErrorCode.InvalidRequest,
      'Bad Request: the Mcp-Session-Id header is required',
    );
  const found = manager.get(id);
  const principal = auth?.principal;
  if (found instanceof Promise)
    return found.then((session) => checked(session, request, principal));
  return checked(found, request, principal);
}

/**
 * Another principal's session is answered exactly like an unknown one: whoever holds someone
 * else's session id learns nothing, not even that it exists.
 */
function checked(
  session: Session | undefined,
  request: IncomingRequest,
  principal: string | undefined,
): SessionLookup {
  if (!session || session.owner !== principal)
    // The log tells the two apart; the client cannot.
    return refuse(
      session ? 'session-principal' : 'session-unknown',
      404,
      ErrorCode.SessionNotFound,
      'Session not found',
    );
  return unsupportedVersion(request) ?? session;
}

/** A MCP-Protocol-Version header that names no legacy revision is a 400, sessions or not. */
function unsupportedVersion(request: IncomingRequest): Reply | undefined {
  const version = request.headers.get(HEADER.protocolVersion);
  if (version === null || (LEGACY_VERSIONS as readonly string[]).includes(version.trim()))
    return undefined;
  return refuse(
    'unsupported-version',
    400,
    ErrorCode.InvalidRequest,
    `Bad Request: unsupported MCP-Protocol-Version ${version}`,
  );
}

/** The revision a request of `session` speaks: the session's, else the header's, else the default. */
export function claimedVersion(
  session: Session | undefined,
  request: IncomingRequest,
  fallback: string,
): string {
  return (
    session?.protocolVersion ?? (request.headers.get(HEADER.protocolVersion)?.trim() || fallback)
  );
}
