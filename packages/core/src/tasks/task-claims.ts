/**
 * Who holds a task: an engine claims a task that has no live runner (queued for one, or lost by
 * its runner) when its tool may run again, with the next fencing token, so the lost runner's
 * writes are refused from then on; the rest it answers `failed`. At shutdown it lets go of what
 * may run again, for a live runner to claim.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import type { Scope } from '../lifecycle/scope.ts';
import { newRunning, type RunningTasks } from './running-tasks.ts';
import { isTerminal, type TaskRecord, type TaskStore } from './store.ts';
import { mayRunAgain } from './stored-call.ts';
import {
  INSTANCE_LOST_ERROR,
  RESTART_ERROR,
  SHUTDOWN_ERROR,
  type TaskOptions,
} from './task-options.ts';

/** The engine as its claims see it. */
interface Claimant {
  readonly id: string;
  readonly store: TaskStore;
  scope(): Scope;
}

export class TaskClaims {
  /** Starts the tool of a task claimed here; unset, the engine claims nothing. */
  start: ((record: TaskRecord, scope: Scope) => void) | undefined;
  readonly #engine: Claimant;
  readonly #running: RunningTasks;
  readonly #maxRunning: number;
  readonly #maxInputAttempts: number;

  constructor(engine: Claimant, running: RunningTasks, options: TaskOptions) {
    this.#engine = engine;
    this.#running = running;
    this.#maxRunning = options.maxRunning ?? Number.POSITIVE_INFINITY;
    this.#maxInputAttempts = options.maxInputAttempts ?? DEFAULTS.tasks.maxInputAttempts;
  }

  /** Whether `record` is unfinished with no live runner: queued, or its runner is gone. */
  async orphan(record: TaskRecord): Promise<boolean> {
    if (isTerminal(record.status) || this.#running.has(record.id)) return false;
    if (record.runner === '') return true;
    const { id, store } = this.#engine;
    if (record.runner === id) return false;
    return store.exclusive || !((await store.alive?.(record.runner)) ?? true);
  }

  /**
   * Claims orphan `record` to run here when it may run again and this engine runs tasks with
   * room; leaves a task that may run to a runner that can; answers the rest `failed`.
   */
  async recover(record: TaskRecord): Promise<TaskRecord | undefined> {
    const { id, store } = this.#engine;
    const fence = record.fence ?? 1;
    const again = mayRunAgain(record, this.#maxInputAttempts);
    if (again && this.start && this.#running.size < this.#maxRunning) {
      const attempts = (record.attempts ?? 1) + 1;
      const claim: Partial<TaskRecord> = { runner: id, fence: fence + 1, attempts };
      // What a client polling it sees: it is running again (a queued task's first run is not).
      if (attempts > 1)
        claim.statusMessage = `Running again (attempt ${attempts}): the runner it had stopped or was lost`;
      const claimed = await store.update(record.id, claim, fence);
      // Lost to another claimant (its fence moved on first), or begun here meanwhile.
      if (claimed?.runner !== id || claimed.fence !== fence + 1 || this.#running.has(record.id))
        return claimed;
      const scope = this.#engine.scope();
      this.#running.add(record.id, newRunning(scope, claimed, fence + 1));
      this.start(claimed, scope);
      return claimed;
    }
    if (again) return record;
    const error = store.exclusive ? RESTART_ERROR : INSTANCE_LOST_ERROR;
    return store.update(record.id, { status: 'failed', error, inputRequests: undefined }, fence);
  }

  /**
   * Shutdown of a task held here with `fence`: one that may run again is let go (queued, its
   * fence one more, so the handler's end here is refused), on a store shared by instances; any
   * other is recorded `failed`, saying the server shut down.
   */
  async letGo(id: string, fence: number): Promise<TaskRecord | undefined> {
    const store = this.#engine.store;
    const current = store.exclusive ? undefined : await store.get(id);
    const patch: Partial<TaskRecord> =
      current && mayRunAgain(current, this.#maxInputAttempts)
        ? { runner: '', fence: fence + 1 }
        : { status: 'failed', error: SHUTDOWN_ERROR, inputRequests: undefined };
    return store.update(id, patch, fence);
  }
}
