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
import { SHUTDOWN_ERROR, type TaskPlan } from './task-options.ts';

/**
 * A new task of `plan`, `working` from now until its TTL from now: held by `runner` (its first
 * run begun), or queued for one (`runner` '', no run yet).
 */
export function workingTask(
  id: string,
  plan: TaskPlan,
  pollIntervalMs: number,
  runner: string,
): TaskRecord {
  const now = Date.now();
  return {
    id,
    binding: plan.binding,
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs: plan.ttlMs,
    pollIntervalMs,
    expiresAt: now + plan.ttlMs,
    tool: plan.tool,
    sessionId: plan.sessionId,
    issuedKeys: [],
    runner,
    fence: 1,
    attempts: runner === '' ? 0 : 1,
    maxAttempts: plan.maxAttempts,
    call: plan.call,
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
  if (reason === 'task-cancelled' || reason === 'task-expired' || reason === 'task-lost')
    return undefined;
  // Shut down: failed, saying why.
  const error =
    reason === 'shutdown' ? SHUTDOWN_ERROR : rpcError(outcome.error, ErrorCode.InvalidParams);
  return { status: 'failed', error };
}
