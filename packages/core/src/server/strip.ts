import type { JsonObject } from '../protocol/jsonrpc.ts';

/** Deletes the keys whose value is `undefined` (in place): definitions send no empty fields. */
export function strip(object: Record<string, unknown>): JsonObject {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object as JsonObject;
}
