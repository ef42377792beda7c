/**
 * The `tasks` option of the handler, and what the engine keeps of each task it runs.
 *
 * @module
 */

import type { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { StoredCall, TaskStore } from './store.ts';

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
  /**
   * Who runs the tasks this handler creates: `here`, its own engine (and, on a store shared by
   * instances, tasks other runners lost); `workers`, only processes running `serveTasks()` on the
   * same store: the call is answered with its task at once, queued, and this instance never runs
   * a task's handler, so long CPU-heavy tools and request handling scale apart. @default 'here'
   */
  run?: 'here' | 'workers';
  /**
   * Tasks this engine runs at once at most: past it, it claims no queued or orphaned task (they
   * wait for a runner with room). Tasks its own requests create are not refused. @default Infinity
   */
  maxRunning?: number;
  /**
   * Runs a task waiting for input (or for its runner to take an answer) gets in all, whatever its
   * tool's `retry`: a runner that stops re-runs it up to the answered `input()`, but a task that
   * kills every runner it lands on must not loop for ever; past it the task fails. @default 16
   */
  maxInputAttempts?: number;
  /**
   * Told of every run of a task on this engine: when its handler begins (`'start'`) and when it
   * ends (`'end'`, with what became of it), with the run's attempt and fencing token. What an
   * operator logs to see tasks move between runners; a listener that throws is ignored.
   */
  onRun?: (event: TaskRunEvent) => void;
}

/**
 * One run of a task's handler on one engine. `outcome` (with `'end'`): the status this run wrote
 * (`completed`, `failed`), `refused` when its end was not written (another runner holds the
 * task now, or it ended meanwhile: a cancel), or `stopped` when it was aborted without writing
 * one (`reason`: `task-lost`, `task-cancelled`, `task-expired`, `shutdown`).
 */
export interface TaskRunEvent {
  phase: 'start' | 'end';
  taskId: string;
  tool: string;
  /** The engine that runs it (a task's `runner`). */
  runner: string;
  /** Which run of the task this is: 1 for the first. */
  attempt: number;
  fence: number;
  outcome?: 'completed' | 'failed' | 'refused' | 'stopped';
  reason?: string;
}

/** What a task needs to be created: who owns it, for how long, for which tool, and its call. */
export interface TaskPlan {
  readonly binding: string;
  readonly tool: string;
  readonly ttlMs: number;
  readonly sessionId: string | undefined;
  /** Whether the request may become a task at all (the client asked for one). */
  readonly allowed: boolean;
  /** Runs its tool allows in all (`ToolEntry.maxAttempts`). */
  readonly maxAttempts: number;
  /** What another runner needs to run it again. */
  readonly call: StoredCall;
}

/** A task this engine runs: its scope, and the handler's pending `input()` calls. */
export interface Running {
  readonly scope: Scope;
  readonly binding: string;
  readonly tool: string;
  /** Which run of the task this is (its record's `attempts` when it began). */
  readonly attempt: number;
  /** The fencing token this engine holds the task with: every write it makes carries it. */
  fence: number;
  /** How often this run asked each input key so far: the same run asks the same wire keys. */
  readonly uses: Map<string, number>;
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
export const INSTANCE_LOST_ERROR = {
  code: ErrorCode.InternalError,
  message: 'The instance running the task was lost, and its tool may not run again',
  data: { reason: 'instance-lost' },
};
