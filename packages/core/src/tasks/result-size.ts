import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/**
 * Sizes of what a task store keeps, in JSON characters (as the memory event store counts): a
 * store holds a finished task's result or error until its TTL, however many tasks a client runs.
 */
export function storedSize(record: { result?: JsonObject | undefined; error?: unknown }): number {
  if (record.result !== undefined)
    return measured.get(record.result) ?? JSON.stringify(record.result).length;
  if (record.error !== undefined) return JSON.stringify(record.error).length;
  return 0;
}

/**
 * Results `completion` already measured: the store weighs the same object right after, and a
 * result can be large, so it is serialized once per task, not twice. Gone with the result.
 */
const measured = new WeakMap<JsonObject, number>();

/** The record of a task whose handler returned `result`: completed, or failed when too large. */
export type Completion =
  | { status: 'completed'; result: JsonObject }
  | { status: 'failed'; error: { code: number; message: string; data: JsonObject } };

export function completion(result: JsonObject, maxResultBytes: number): Completion {
  const size = JSON.stringify(result).length;
  if (size <= maxResultBytes) {
    measured.set(result, size);
    return { status: 'completed', result };
  }
  return {
    status: 'failed',
    error: {
      code: ErrorCode.InternalError,
      message: `The task's result (${size} characters of JSON) is larger than this server keeps (${maxResultBytes})`,
      data: { reason: 'result-too-large', size, limit: maxResultBytes },
    },
  };
}
