import { ErrorCode } from '../protocol/constants.ts';
import { errorMessage, type RequestId } from '../protocol/jsonrpc.ts';
import type { RefusalReason } from './refusal.ts';

export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
};

/**
 * A complete answer kept as plain data (status, headers, text) until the boundary: `fetch()`
 * turns it into a `Response`, while an adapter that calls `handle()` (Node) writes it to the
 * socket directly, with no Web `Response` built or read on the hot path.
 */
export class Reply {
  readonly status: number;
  readonly body: string | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON-RPC error code of an error answer made here (`errorResponse`). */
  errorCode: number | undefined = undefined;
  /** Why the request was refused before its method ran (see `refuse`); reported once. */
  refusal: RefusalReason | undefined = undefined;

  constructor(status: number, body: string | null, headers: Readonly<Record<string, string>>) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  toResponse(): Response {
    return new Response(this.body, { status: this.status, headers: this.headers });
  }
}

/** What the endpoint answers: a complete `Reply`, or a `Response` whose body streams (SSE). */
export type Answer = Reply | Response;

const NO_HEADERS: Readonly<Record<string, string>> = {};

export function toResponse(answer: Answer): Response {
  return answer instanceof Reply ? answer.toResponse() : answer;
}

export function jsonResponse(body: string, status = 200, extra?: Record<string, string>): Reply {
  return new Reply(status, body, extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS);
}

/** A JSON-RPC error answer; `id` omitted when the request's id could not be read. */
export function errorResponse(
  status: number,
  code: number,
  message: string,
  id?: RequestId,
  data?: unknown,
  extra?: Record<string, string>,
): Reply {
  const reply = jsonResponse(
    errorMessage(id, data === undefined ? { code, message } : { code, message, data }),
    status,
    extra,
  );
  reply.errorCode = code;
  return reply;
}

/** A JSON-RPC error answer that refuses the request before its method ran, for `reason`. */
export function refuse(
  reason: RefusalReason,
  status: number,
  code: number,
  message: string,
  id?: RequestId,
  data?: unknown,
  extra?: Record<string, string>,
): Reply {
  return refused(errorResponse(status, code, message, id, data, extra), reason);
}

/** Marks an answer already made (`overBudget`, `shuttingDown`, …) as the refusal for `reason`. */
export function refused(reply: Reply, reason: RefusalReason): Reply {
  reply.refusal = reason;
  return reply;
}

const RETRY_SOON: Readonly<Record<string, string>> = { 'retry-after': '1' };

/** 503 for a request the server will not serve because it is shutting down. */
export function shuttingDown(id?: RequestId): Reply {
  return errorResponse(
    503,
    ErrorCode.InternalError,
    'The server is shutting down',
    id,
    undefined,
    RETRY_SOON,
  );
}

/** 503 for a request whose session, event or task storage cannot be reached now. */
export function storageUnavailable(retryAfterSeconds: number, id?: RequestId): Reply {
  return errorResponse(
    503,
    ErrorCode.ServerError,
    'Session storage is unavailable',
    id,
    undefined,
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/**
 * A request refused by a budget: 429 (this session asks too much at once) or 503 (the server is
 * at capacity), with a `Retry-After`; `limit` names the option that was reached.
 */
export function overBudget(
  status: 429 | 503,
  message: string,
  id?: RequestId,
  retryAfterSeconds = 1,
): Reply {
  return errorResponse(status, ErrorCode.ServerError, message, id, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

export function emptyReply(status: number): Reply {
  return new Reply(status, null, NO_HEADERS);
}

export function accepted(): Reply {
  return emptyReply(202);
}

export function methodNotAllowed(allow: string): Reply {
  return errorResponse(405, ErrorCode.ServerError, 'Method not allowed', undefined, undefined, {
    allow,
  });
}
