/**
 * Refusals an adapter makes before the handler sees the request, answered and reported by the
 * handler (`handler[REFUSE]`), so they read in the request log like the handler's own.
 *
 * @module
 */
import type { IncomingRequest } from '../http/incoming.ts';
import { type Reply, refuse } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { refuseToken, type TokenRefusal } from '../server/resource-server.ts';
import type { RoutedEndpoint } from './routed-endpoint.ts';

/** What an adapter may refuse on its own. */
export type AdapterRefusal = 'body-too-large' | 'session-unknown' | TokenRefusal;

/** The answer to an adapter's refusal (`message` replaces the default text), reported once. */
export function refuseForAdapter(
  core: RoutedEndpoint,
  request: IncomingRequest,
  reason: AdapterRefusal,
  message?: string,
): Reply {
  const reply = answerFor(core, reason, message);
  core.refused(request, reply, undefined);
  return reply;
}

function answerFor(core: RoutedEndpoint, reason: AdapterRefusal, message?: string): Reply {
  switch (reason) {
    case 'body-too-large':
      return refuse(
        reason,
        413,
        ErrorCode.InvalidRequest,
        message ?? `Request body exceeds ${core.maxBodyBytes} bytes`,
      );
    case 'session-unknown':
      return refuse(reason, 404, ErrorCode.SessionNotFound, message ?? 'Session not found');
    default:
      return refuseToken(core.resourceServer, reason);
  }
}
