/**
 * Refusals an adapter makes before the handler sees the request, answered and reported by the
 * handler (`handler[REFUSE]`), so they read in the request log like the handler's own.
 *
 * @module
 */
import type { IncomingRequest } from '../http/incoming.ts';
import { type Reply, refuse } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import { refuseToken, type TokenRefusal } from '../server/resource-server.ts';
import type { RoutedEndpoint } from './routed-endpoint.ts';

/**
 * What an adapter may refuse on its own. `session-quota` and `session-limit` are the caps a
 * Cloudflare session Worker enforces with its registry before a session object is made.
 */
export type AdapterRefusal =
  | 'body-too-large'
  | 'session-unknown'
  | 'session-quota'
  | 'session-limit'
  | TokenRefusal;

/** A full cap frees up as soon as any of the sessions ends or goes idle. */
const RETRY_SOON: Readonly<Record<string, string>> = { 'retry-after': '1' };

/**
 * The answer to an adapter's refusal (`message` replaces the default text; `id` is the request's,
 * when the adapter read it), reported once.
 */
export function refuseForAdapter(
  core: RoutedEndpoint,
  request: IncomingRequest,
  reason: AdapterRefusal,
  message?: string,
  id?: RequestId,
): Reply {
  const reply = answerFor(core, request, reason, message, id);
  core.requests.refused(request, reply, undefined);
  return reply;
}

function answerFor(
  core: RoutedEndpoint,
  request: IncomingRequest,
  reason: AdapterRefusal,
  message: string | undefined,
  id: RequestId | undefined,
): Reply {
  switch (reason) {
    case 'body-too-large':
      return refuse(
        reason,
        413,
        ErrorCode.InvalidRequest,
        message ?? `Request body exceeds ${core.maxBodyBytes} bytes`,
      );
    case 'session-unknown':
      return refuse(reason, 404, ErrorCode.SessionNotFound, message ?? 'Session not found', id);
    // As the session managers answer their own caps (legacy/initialize.ts).
    case 'session-quota':
      return refuse(
        reason,
        429,
        ErrorCode.ServerError,
        message ?? 'This client has reached its session quota',
        id,
        undefined,
        RETRY_SOON,
      );
    case 'session-limit':
      return refuse(
        reason,
        503,
        ErrorCode.InternalError,
        message ?? 'Too many sessions',
        id,
        undefined,
        RETRY_SOON,
      );
    default:
      return refuseToken(
        core.resourceServer,
        reason,
        core.resourceServer?.factsAt(request, core.trust?.read(request)),
      );
  }
}
