export type RequestId = string | number;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; id: RequestId; result?: unknown; error?: JsonRpcErrorObject };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** Classifies one parsed JSON value; `undefined` when it is not a JSON-RPC 2.0 message. */
export function classify(value: unknown): JsonRpcMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if (value.params !== undefined && !isObject(value.params)) return undefined;
  if (typeof value.method === 'string') {
    if (!('id' in value))
      return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    return isId(value.id)
      ? { kind: 'request', message: value as unknown as JsonRpcRequest }
      : undefined;
  }
  if (
    value.method === undefined &&
    isId(value.id) &&
    ('result' in value || isObject(value.error))
  ) {
    return {
      kind: 'response',
      id: value.id,
      result: value.result,
      error: value.error as JsonRpcErrorObject,
    };
  }
  return undefined;
}

/** Serialized JSON-RPC result; `id` is written as given (string ids keep their quotes). */
export function resultMessage(id: RequestId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`;
}

/** Serialized JSON-RPC error; the id is omitted when the request's id could not be read. */
export function errorMessage(id: RequestId | undefined, error: JsonRpcErrorObject): string {
  const body = id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
  return JSON.stringify(body);
}

export function notificationMessage(method: string, params: JsonObject): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

/**
 * A client-sent value as it may appear in an error message: strings cut to 100 characters,
 * numbers and booleans as they are, anything else by its kind. Never `String(value)`: a deeply
 * nested array would recurse until the stack overflows.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`;
}
