import type { AuthInfo } from '../auth/auth-info.ts';
import { DEFAULTS } from '../defaults.ts';
import { McpError } from '../errors.ts';
import { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { InputRequest } from '../server/types.ts';
import { MemoryTaskStore } from './memory-task-store.ts';
import { RunningTasks } from './running-tasks.ts';
import {
  isTerminal,
  newTaskId,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStore,
} from './store.ts';
import { issueKeys, mergeAnswers, takeAnswers, waitForAnswers, wake } from './task-input.ts';
import { RESTART_ERROR, type Running, SHUTDOWN_ERROR, type TaskOptions } from './task-options.ts';
import { settlement, workingTask } from './task-records.ts';
import { type TaskWatch, watchTask } from './watch.ts';

export type { TaskOptions } from './task-options.ts';

/**
 * Runs tasks: handlers that go on after the request that started them, under the server's root
 * scope (a client leaving does not cancel them; `tasks/cancel`, the TTL and shutdown do), with
 * their state in a `TaskStore`. Both protocol eras serve it.
 */
export class TaskEngine implements TaskHost {
  #id: string | undefined;
  readonly store: TaskStore;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly #maxActive: number;
  readonly #maxResult: number;
  readonly #root: Scope;
  readonly #running = new RunningTasks();

  constructor(root: Scope, options: TaskOptions) {
    this.#root = root;
    this.store = options.store ?? new MemoryTaskStore();
    this.ttlMs = options.ttlMs ?? DEFAULTS.tasks.ttlMs;
    this.maxTtlMs = Math.max(this.ttlMs, options.maxTtlMs ?? DEFAULTS.tasks.maxTtlMs);
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULTS.tasks.pollIntervalMs;
    this.#maxActive = options.maxActivePerPrincipal ?? DEFAULTS.tasks.maxActivePerPrincipal;
    this.#maxResult = options.maxResultBytes ?? DEFAULTS.tasks.maxResultBytes;
    this.store.bind(this);
  }
  /**
   * This engine instance (a task's `runner`): the store's `runner`, else a fresh id, made on first
   * use: random values at start-up cost a cold start (Node 20 loads Web Crypto on the first read
   * of `crypto`) and are refused at a Worker script's top level.
   */
  get id(): string {
    this.#id ??= this.store.runner ?? newTaskId();
    return this.#id;
  }

  /**
   * Who a request's tasks belong to: its principal, else its legacy session, else its client
   * address (so one unauthenticated client's tasks do not count against every other's quota),
   * else nobody.
   */
  static binding(
    auth: AuthInfo | undefined,
    sessionId: string | undefined,
    client?: string,
  ): string {
    if (auth) return `p:${auth.principal}`;
    if (sessionId !== undefined) return `s:${sessionId}`;
    return client === undefined ? '' : `a:${client}`;
  }

  /** A task scope under the root: what a task's handler runs in from the start. */
  scope(): Scope {
    return new Scope(this.#root);
  }

  /**
   * Creates a task, durably, for a handler running in `scope`; `undefined` when the principal
   * has too many unfinished tasks (the call then simply runs without one).
   */
  async create(
    scope: Scope,
    binding: string,
    tool: string,
    ttlMs: number,
    sessionId: string | undefined,
  ): Promise<TaskRecord | undefined> {
    // A quick answer without a write; the store checks again as it creates (atomically, where
    // instances share it).
    if ((await this.store.countActive(binding)) >= this.#maxActive) return undefined;
    const record = workingTask(this.store.newId?.(binding) ?? newTaskId(), binding, tool, ttlMs, {
      pollIntervalMs: this.pollIntervalMs,
      sessionId,
      runner: this.id,
    });
    try {
      await this.store.create(record, this.#maxActive);
    } catch (error) {
      // A full store is a budget like the per-principal one: the call runs without a task.
      if (error instanceof TaskLimitError) return undefined;
      throw error;
    }
    this.#running.add(record.id, { scope, binding, waiters: [], answers: {} });
    this.#running.emit(record);
    return record;
  }

  /** The handler of a task settled: its result, or what it threw. */
  async settle(id: string, outcome: { result: JsonObject } | { error: unknown }): Promise<void> {
    const running = this.#running.get(id);
    this.#running.forget(id);
    running?.scope.dispose();
    const patch = settlement(outcome, running?.scope.reason, this.#maxResult);
    if (patch === undefined) return;
    let record: TaskRecord | undefined;
    try {
      record = await this.store.update(id, { ...patch, inputRequests: undefined });
    } catch {
      // Nobody awaits a settle: a store that cannot take the write (a remote one that is away)
      // must not make it an unhandled rejection. A store that can keeps the write for later.
      return;
    }
    if (record) this.#running.emit(record);
  }

  /** Sets a running task's status message. */
  status(id: string, message: string): void {
    const updated = this.store.update(id, { statusMessage: message });
    if (updated instanceof Promise)
      updated.then(
        (r) => r && this.#running.emit(r),
        () => {},
      );
    else if (updated) this.#running.emit(updated);
  }

  /** A task's handler asks the client for input: the task waits in `input_required`. */
  async input(id: string, requests: Record<string, InputRequest>): Promise<JsonObject> {
    const current = await this.store.get(id);
    if (!current) throw new McpError(ErrorCode.InternalError, 'The task is gone');
    const { keys, outstanding, issued } = issueKeys(current, requests);
    const running = this.#running.get(id);
    if (!running) throw new McpError(ErrorCode.InternalError, 'The task is not running here');
    const answered = waitForAnswers(running, keys);
    const record = await this.store.update(id, {
      status: 'input_required',
      inputRequests: outstanding,
      issuedKeys: issued,
    });
    if (record) this.#running.emit(record);
    return answered;
  }

  /**
   * Answers to a task's input requests (`tasks/update`): only keys still outstanding count; the
   * task is `working` again once none is. False when the task is unknown to `binding`.
   */
  async answer(binding: string, id: string, responses: JsonObject): Promise<boolean> {
    const record = await this.get(binding, id);
    if (!record) return false;
    const { outstanding, given, changed } = takeAnswers(record, responses);
    const running = this.#running.get(id);
    if (running) Object.assign(running.answers, given);
    if (!changed || isTerminal(record.status)) return true;
    const pending = Object.keys(outstanding).length > 0;
    const patch: Partial<TaskRecord> = {
      status: pending ? 'input_required' : 'working',
      inputRequests: pending ? outstanding : undefined,
    };
    // Its runner is another instance: the answers travel in the record (it is told by `changed`).
    if (!running) patch.answers = { ...record.answers, ...given };
    const updated = await this.store.update(id, patch);
    if (updated) this.#running.emit(updated);
    if (running) wake(running);
    return true;
  }

  /** `tasks/cancel`: recorded `cancelled` first, then the handler is aborted. */
  async cancel(binding: string, id: string): Promise<TaskRecord | undefined> {
    const record = await this.get(binding, id);
    if (!record) return undefined;
    if (isTerminal(record.status)) return record;
    const cancelled = await this.store.update(id, {
      status: 'cancelled',
      inputRequests: undefined,
    });
    this.#running.get(id)?.scope.abort('task-cancelled');
    if (cancelled) this.#running.emit(cancelled);
    return cancelled;
  }

  /** A task as `binding` may see it: another's is "not found", and so is an expired one. */
  async get(binding: string, id: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(id);
    if (!record || record.binding !== binding) return undefined;
    // A task whose runner restarted (or died: stores shared by instances) is answered with a
    // definite end, never `working` for ever.
    if (
      !isTerminal(record.status) &&
      record.runner !== this.id &&
      !this.#running.has(id) &&
      (this.store.exclusive || !((await this.store.alive?.(record.runner)) ?? true))
    ) {
      return (await this.store.update(id, { status: 'failed', error: RESTART_ERROR })) ?? record;
    }
    return record;
  }

  list(binding: string, cursor: string | undefined, limit: number) {
    return this.store.list(binding, cursor, limit);
  }

  /** TaskHost: the store forgot an expired task; a handler still running for it stops. */
  expired(id: string): void {
    const running = this.#running.get(id);
    this.#running.forget(id);
    running?.scope.abort('task-expired');
  }

  /**
   * TaskHost: another instance changed task `id`. Read once if it runs or is watched here: a
   * terminal task's handler is aborted (`task-cancelled`), answers to its input wake it, and the
   * watchers (listen streams, `tasks/result`, status notifications) hear of it.
   */
  changed(id: string): void {
    const running = this.#running.get(id);
    if (running === undefined && !this.#running.listened) return;
    this.#reread(id, running).catch(ignore);
  }

  async #reread(id: string, running: Running | undefined): Promise<void> {
    const record = await this.store.get(id);
    if (!record) return;
    if (running !== undefined && this.#running.get(id) === running) {
      if (isTerminal(record.status)) running.scope.abort('task-cancelled');
      else if (record.answers && mergeAnswers(running, record.answers)) wake(running);
    }
    this.#running.emit(record);
  }

  /**
   * A legacy session ended: its session-bound tasks can no longer be reached by anyone, so the
   * ones running here are cancelled (principal-bound tasks outlive the session).
   */
  endSession(sessionId: string): void {
    const binding = TaskEngine.binding(undefined, sessionId);
    for (const [id, running] of this.#running.entries()) {
      if (running.binding !== binding) continue;
      const cancelled = this.store.update(id, { status: 'cancelled', inputRequests: undefined });
      if (cancelled instanceof Promise) cancelled.catch(() => {});
      running.scope.abort('task-cancelled');
    }
  }

  /**
   * Watches task `id`: `next()` resolves once it changed since the previous `next()` (or since
   * the watch began), or when `signal` aborts. `close()` when done.
   */
  watch(id: string, signal: AbortSignal): TaskWatch {
    return watchTask(this, id, signal);
  }

  /** Calls `listener` for every change of a task this engine sees; returns the unsubscribe. */
  onChange(listener: (record: TaskRecord) => void): () => void {
    return this.#running.onChange(listener);
  }

  /**
   * Shutdown: every running task is recorded `failed` (saying the server shut down), so a poll
   * after a restart gets a definite answer; the root's abort then stops the handlers.
   */
  async shutdown(): Promise<void> {
    const ids = this.#running.ids();
    await Promise.all(
      ids.map(async (id) => {
        try {
          const record = await this.store.update(id, {
            status: 'failed',
            error: SHUTDOWN_ERROR,
            inputRequests: undefined,
          });
          if (record) this.#running.emit(record);
        } catch {}
      }),
    );
  }

  /** Tasks this engine is running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Called whenever no task handler is running any more (shutdown waits on it). */
  onIdle(fn: () => void): void {
    this.#running.onIdle(fn);
  }
}

function ignore(): void {}
