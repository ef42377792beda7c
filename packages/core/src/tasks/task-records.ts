/**
 * How the engine's task records begin (`working`) and end (the patch a settled handler writes).
 *
 * @module
 */

import { rpcError } from '../errors.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { completion } from './result-size.ts';
import type { TaskRecord } from './store.ts';
import { SHUTDOWN_ERROR } from './task-options.ts';

/** A new task, `working` from now until `ttlMs` from now, run by `runner`. */
export function workingTask(
  id: string,
  binding: string,
  tool: string,
  ttlMs: number,
  where: { pollIntervalMs: number; sessionId: string | undefined; runner: string },
): TaskRecord {
  const now = Date.now();
  return {
    id,
    binding,
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs,
    pollIntervalMs: where.pollIntervalMs,
    expiresAt: now + ttlMs,
    tool,
    sessionId: where.sessionId,
    issuedKeys: [],
    runner: where.runner,
  };
}

/**
 * What a settled handler's task becomes: `completed` with its result (or `failed`, too large),
 * `failed` with what it threw; `undefined` when its end is already recorded (cancelled, expired).
 * `reason`: why the task's scope aborted, if it did.
 */
export function settlement(
  outcome: { result: JsonObject } | { error: unknown },
  reason: AbortReasonType | undefined,
  maxResultBytes: number,
): Partial<TaskRecord> | undefined {
  if ('result' in outcome) return completion(outcome.result, maxResultBytes);
  if (reason === 'task-cancelled' || reason === 'task-expired') return undefined;
  // Shut down: failed, saying why.
  const error =
    reason === 'shutdown' ? SHUTDOWN_ERROR : rpcError(outcome.error, ErrorCode.InvalidParams);
  return { status: 'failed', error };
}
