/**
 * The `tasks` option of the handler, and what the engine keeps of each task it runs.
 *
 * @module
 */

import type { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { TaskStore } from './store.ts';

/** The `tasks` option of the handler. */
export interface TaskOptions {
  /** Where tasks live. @default new MemoryTaskStore() */
  store?: TaskStore;
  /** How long a task and its result are kept from its creation. @default 3600000 (1 h) */
  ttlMs?: number;
  /** The longest TTL a 2025-11-25 client may ask for with `params.task.ttl`. @default 86400000 (24 h) */
  maxTtlMs?: number;
  /** The poll interval suggested to clients. @default 1000 */
  pollIntervalMs?: number;
  /** Unfinished tasks per principal (or session); over it a call runs without a task. @default 100 */
  maxActivePerPrincipal?: number;
  /**
   * The largest result a task keeps, in JSON characters: a result is held until the task's TTL,
   * so a larger one fails the task (`-32603`, `data.reason: 'result-too-large'`) rather than let
   * callers pile up memory. @default 1048576 (1 MiB)
   */
  maxResultBytes?: number;
}

/** A task this engine runs: its scope, and the handler's pending `input()` calls. */
export interface Running {
  readonly scope: Scope;
  readonly binding: string;
  waiters: Array<{ keys: Map<string, string>; resolve(answers: JsonObject): void }>;
  /** Every answer taken so far, by wire key (keys are never reused). */
  answers: Record<string, JsonObject>;
}

export const SHUTDOWN_ERROR = {
  code: ErrorCode.InternalError,
  message: 'The server shut down before the task finished',
  data: { reason: 'shutdown' },
};
export const RESTART_ERROR = {
  code: ErrorCode.InternalError,
  message: 'The server restarted before the task finished',
  data: { reason: 'restart' },
};
