import type { AuthInfo } from '../auth/auth-info.ts';
import { DEFAULTS } from '../defaults.ts';
import { McpError } from '../errors.ts';
import { Scope } from '../lifecycle/scope.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { InputRequest } from '../server/types.ts';
import { MemoryTaskStore } from './memory-task-store.ts';
import { newRunning, RunningTasks } from './running-tasks.ts';
import {
  isTerminal,
  newTaskId,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStore,
} from './store.ts';
import { TaskClaims } from './task-claims.ts';
import { askKeys, mergeAnswers, takeAnswers, waitForAnswers, wake } from './task-input.ts';
import type { Running, TaskOptions, TaskPlan } from './task-options.ts';
import { settlement, workingTask } from './task-records.ts';
import { type TaskWatch, watchTask } from './watch.ts';

export type { TaskOptions, TaskRunEvent } from './task-options.ts';

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
  readonly #running: RunningTasks;
  /** Whether this engine runs tasks (`run: 'here'`), else only queues them for workers. */
  readonly runs: boolean;
  readonly #claims: TaskClaims;
  #closing = false;

  constructor(root: Scope, options: TaskOptions) {
    this.#root = root;
    this.store = options.store ?? new MemoryTaskStore();
    this.ttlMs = options.ttlMs ?? DEFAULTS.tasks.ttlMs;
    this.maxTtlMs = Math.max(this.ttlMs, options.maxTtlMs ?? DEFAULTS.tasks.maxTtlMs);
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULTS.tasks.pollIntervalMs;
    this.#maxActive = options.maxActivePerPrincipal ?? DEFAULTS.tasks.maxActivePerPrincipal;
    this.#maxResult = options.maxResultBytes ?? DEFAULTS.tasks.maxResultBytes;
    this.runs = options.run !== 'workers';
    this.#running = new RunningTasks(() => this.id, options.onRun);
    this.#claims = new TaskClaims(this, this.#running, options);
    this.store.bind(this);
  }

  /**
   * Lets the engine run tasks it did not start from a request (queued ones, and those another
   * runner lost): `start` runs the task's tool in `scope` and settles it.
   */
  serve(start: (record: TaskRecord, scope: Scope) => void): void {
    if (this.runs) this.#claims.start = start;
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
   * Creates a task of `plan`, durably, for a handler running in `scope` (`undefined` scope:
   * queued for a runner, `run: 'workers'`); `undefined` when the principal has too many
   * unfinished tasks (the call then simply runs without one).
   */
  async create(scope: Scope | undefined, plan: TaskPlan): Promise<TaskRecord | undefined> {
    // A quick answer without a write; the store checks again as it creates (atomically, where
    // instances share it).
    if ((await this.store.countActive(plan.binding)) >= this.#maxActive) return undefined;
    const id = this.store.newId?.(plan.binding) ?? newTaskId();
    const record = workingTask(id, plan, this.pollIntervalMs, scope ? this.id : '');
    try {
      await this.store.create(record, this.#maxActive);
    } catch (error) {
      // A full store is a budget like the per-principal one: the call runs without a task.
      if (error instanceof TaskLimitError) return undefined;
      throw error;
    }
    if (scope) this.#running.add(id, newRunning(scope, record, 1));
    this.#running.emit(record);
    return record;
  }

  /** The handler of a task settled: its result, or what it threw. */
  async settle(id: string, outcome: { result: JsonObject } | { error: unknown }): Promise<void> {
    const running = this.#running.get(id);
    // Not running here any more (expired, lost to another runner): its end is not ours to write.
    if (!running) return;
    this.#running.forget(id);
    const reason = running.scope.reason;
    running.scope.dispose();
    // Shutting down: `shutdown()` writes each running task's end (or lets it go) itself.
    const patch = this.#closing ? undefined : settlement(outcome, reason, this.#maxResult);
    if (patch === undefined) {
      this.#running.ended(id, running, 'stopped', this.#closing ? 'shutdown' : reason);
      return;
    }
    try {
      const record = await this.store.update(
        id,
        { ...patch, inputRequests: undefined },
        running.fence,
      );
      const written =
        record !== undefined && record.status === patch.status && !this.#taken(record, running);
      this.#running.ended(
        id,
        running,
        written ? (patch.status as 'completed' | 'failed') : 'refused',
      );
      if (record) this.#running.emit(record);
    } catch {
      // Nobody awaits a settle: a store that cannot take the write (a remote one that is away)
      // must not make it an unhandled rejection. A store that can keeps the write for later.
      this.#running.ended(id, running, 'refused', 'store-unavailable');
    }
  }

  /** Sets a running task's status message. */
  status(id: string, message: string): void {
    const running = this.#running.get(id);
    if (!running) return;
    const updated = this.store.update(id, { statusMessage: message }, running.fence);
    if (updated instanceof Promise) updated.then((r) => this.#wrote(id, running, r), ignore);
    else this.#wrote(id, running, updated);
  }

  /**
   * A task's handler asks the client for input: the task waits in `input_required`, unless
   * every answer is in already (a run that started again, asking what was answered).
   */
  async input(id: string, requests: Record<string, InputRequest>): Promise<JsonObject> {
    const running = this.#running.get(id);
    if (!running) throw new McpError(ErrorCode.InternalError, 'The task is not running here');
    const current = await this.store.get(id);
    if (!current) throw new McpError(ErrorCode.InternalError, 'The task is gone');
    if (current.answers) mergeAnswers(running, current.answers);
    const { keys, outstanding, issued, waiting } = askKeys(running, current, requests);
    const answered = waitForAnswers(running, keys);
    if (!waiting) {
      this.#resume(id, running, current);
      return answered;
    }
    const patch = { status: 'input_required', inputRequests: outstanding, issuedKeys: issued };
    this.#wrote(id, running, await this.store.update(id, patch as TaskRecord, running.fence));
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
      answered: pending ? undefined : true,
    };
    // Kept in the record: a runner elsewhere is told (`changed`), and a run that starts again
    // (its runner lost) finds them.
    patch.answers = { ...record.answers, ...given };
    const updated = await this.store.update(id, patch);
    if (updated) this.#running.emit(updated);
    if (running && updated) this.#resume(id, running, updated);
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

  /**
   * A task as `binding` may see it: another's is "not found", and so is an expired one. One
   * whose runner is gone (a restart; on a shared store, a lapsed lease) is claimed to run again
   * here if it may, else answered with a definite end: never `working` for ever.
   */
  async get(binding: string, id: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(id);
    if (!record || record.binding !== binding) return undefined;
    if (!(await this.#claims.orphan(record))) return record;
    const recovered = await this.#claims.recover(record);
    if (recovered && recovered !== record) this.#running.emit(recovered);
    return recovered ?? record;
  }

  /** TaskHost: task `id` may have lost its runner; claimed or failed if it has. */
  orphaned(id: string): void {
    if (this.#running.has(id)) return;
    (async () => {
      const record = await this.store.get(id);
      if (!record || !(await this.#claims.orphan(record))) return;
      const recovered = await this.#claims.recover(record);
      if (recovered && recovered !== record) this.#running.emit(recovered);
    })().catch(ignore);
  }

  /** A write of a task running here came back: refused for another fence, the task was lost. */
  #wrote(id: string, running: Running, record: TaskRecord | undefined): void {
    if (!record) return;
    if (
      this.#running.get(id) === running &&
      !isTerminal(record.status) &&
      this.#taken(record, running)
    )
      this.#lose(id, running);
    this.#running.emit(record);
  }

  #taken(record: TaskRecord, running: Running): boolean {
    return record.runner !== this.id || (record.fence ?? 1) !== running.fence;
  }

  /** Another runner holds task `id` now: the handler here stops without writing its end. */
  #lose(id: string, running: Running): void {
    this.#running.forget(id);
    running.scope.abort('task-lost');
    this.#running.ended(id, running, 'stopped', 'task-lost');
  }

  /**
   * Answers came for a task running here: its handler goes on. The record's `answered` mark is
   * cleared first, so a run lost after it went on is not started again (it may have acted).
   */
  #resume(id: string, running: Running, record: TaskRecord): void {
    if (!record.answered) {
      wake(running);
      return;
    }
    const go = (cleared: TaskRecord | undefined) => {
      this.#wrote(id, running, cleared);
      if (this.#running.get(id) === running) wake(running);
    };
    const cleared = this.store.update(id, { answered: undefined }, running.fence);
    if (cleared instanceof Promise) cleared.then(go, ignore);
    else go(cleared);
  }

  list(binding: string, cursor: string | undefined, limit: number) {
    return this.store.list(binding, cursor, limit);
  }

  /** TaskHost: the store forgot an expired task; a handler still running for it stops. */
  expired(id: string): void {
    const running = this.#running.get(id);
    if (!running) return;
    this.#running.forget(id);
    running.scope.abort('task-expired');
    this.#running.ended(id, running, 'stopped', 'task-expired');
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
      else if (this.#taken(record, running)) this.#lose(id, running);
      else if (record.answers && mergeAnswers(running, record.answers))
        this.#resume(id, running, record);
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
      const patch: Partial<TaskRecord> = { status: 'cancelled', inputRequests: undefined };
      const cancelled = this.store.update(id, patch, running.fence);
      if (cancelled instanceof Promise) cancelled.catch(ignore);
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
   * Shutdown: a running task that may run again is let go (queued, its fence one more, so the
   * handler's end here is refused) for a live runner to claim, on a store shared by instances;
   * every other is recorded `failed`, saying the server shut down, so a poll after a restart
   * gets a definite answer. The root's abort then stops the handlers.
   */
  async shutdown(): Promise<void> {
    // What it lets go is for other runners: it claims nothing from now on, and the handlers'
    // ends (they are about to be aborted) are not written over what it writes.
    this.#claims.start = undefined;
    this.#closing = true;
    await Promise.all(
      [...this.#running.entries()].map(async ([id, running]) => {
        try {
          const record = await this.#claims.letGo(id, running.fence);
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
