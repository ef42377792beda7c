import type { ExchangeBase } from '../http/exchange-base.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Session } from '../sessions/session.ts';
import type { RequestEvent, SessionEvent } from './events.ts';
import type { RequestStart } from './instrumentation.ts';

/** What the request log and the instrumentation get of a settled request. */
export function requestEvent(
  exchange: ExchangeBase,
  protocolVersion: string,
  sessionId: string | undefined,
): RequestEvent {
  const cancelled = exchange.aborted && exchange.errorCode === undefined;
  return {
    id: exchange.id,
    method: exchange.method,
    name: exchange.name,
    protocolVersion,
    sessionId,
    outcome: cancelled ? 'cancelled' : exchange.errorCode === undefined ? 'ok' : 'error',
    reason: cancelled ? exchange.reason : undefined,
    errorCode: exchange.errorCode,
    ms: Math.round((performance.now() - exchange.started) * 100) / 100,
  };
}

/** What an instrumentation gets of a request about to run. */
export function requestStart(
  exchange: ExchangeBase,
  protocolVersion: string,
  sessionId: string | undefined,
  meta: RequestStart['meta'],
): RequestStart {
  return {
    id: exchange.id,
    method: exchange.method,
    name: exchange.name,
    protocolVersion,
    sessionId,
    meta,
  };
}

/** What the session hooks and the instrumentation get of a session opened or closed. */
export function sessionEventOf(
  session: Session,
  reason: AbortReasonType | undefined,
  userAgent: string | undefined,
): SessionEvent {
  return {
    sessionId: session.id,
    protocolVersion: session.protocolVersion,
    reason,
    clientInfo: session.clientInfo,
    userAgent,
  };
}
