import { errorMessage, type RequestId } from '../protocol/jsonrpc.ts';

export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
};

export function jsonResponse(body: string, status = 200, extra?: Record<string, string>): Response {
  return new Response(body, {
    status,
    headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS,
  });
}

/** A JSON-RPC error answer; `id` omitted when the request's id could not be read. */
export function errorResponse(
  status: number,
  code: number,
  message: string,
  id?: RequestId,
  data?: unknown,
  extra?: Record<string, string>,
): Response {
  return jsonResponse(
    errorMessage(id, data === undefined ? { code, message } : { code, message, data }),
    status,
    extra,
  );
}

export function accepted(): Response {
  return new Response(null, { status: 202 });
}

export function methodNotAllowed(allow: string): Response {
  return errorResponse(405, -32000, 'Method not allowed', undefined, undefined, { allow });
}
