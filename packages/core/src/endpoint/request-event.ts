import type { ExchangeBase } from '../http/exchange-base.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import type { Reply } from '../http/responses.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { HEADER, META } from '../protocol/constants.ts';
import { isObject, type JsonRpcMessage } from '../protocol/jsonrpc.ts';
import type { Session } from '../sessions/session.ts';
import type { RequestEvent, SessionEvent } from './events.ts';
import type { RequestStart } from './instrumentation.ts';

/** Calls a session hook; an observer that throws must not break the server. */
export function emitSessionEvent(
  hook: ((event: SessionEvent) => void) | undefined,
  event: SessionEvent,
): void {
  try {
    hook?.(event);
  } catch {
    // Observers must not break the server.
  }
}

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
    status: undefined,
    errorCode: exchange.errorCode,
    error: describeFailure(exchange.failure),
    ms: Math.round((performance.now() - exchange.started) * 100) / 100,
  };
}

/**
 * What the request log and the instrumentation get of a request refused before its method ran:
 * what the request said of itself (its message, when it was read), the status and the reason.
 */
export function refusalEvent(
  request: IncomingRequest,
  reply: Reply,
  message: JsonRpcMessage | undefined,
): RequestEvent {
  const rpc = message === undefined || message.kind === 'response' ? undefined : message.message;
  const params = rpc?.params;
  const target = params?.name ?? params?.uri;
  const meta = isObject(params?._meta) ? params._meta[META.protocolVersion] : undefined;
  const version =
    (typeof meta === 'string' ? meta : undefined) ??
    request.headers.get(HEADER.protocolVersion)?.trim() ??
    (typeof params?.protocolVersion === 'string' ? params.protocolVersion : undefined);
  return {
    id: message?.kind === 'request' ? message.message.id : undefined,
    method: rpc?.method ?? request.method,
    name: typeof target === 'string' ? target : undefined,
    protocolVersion: version,
    sessionId: request.headers.get(HEADER.sessionId) ?? undefined,
    outcome: 'refused',
    reason: reply.refusal,
    status: reply.status,
    errorCode: reply.errorCode,
    error: undefined,
    ms: 0,
  };
}

function describeFailure(failure: unknown): string | undefined {
  if (failure === undefined) return undefined;
  return failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
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
