/**
 * The tasks a `TaskEngine` runs on this instance, and who listens to task changes: the engine's
 * bookkeeping, apart from its protocol rules.
 *
 * @module
 */
import type { Scope } from '../lifecycle/scope.ts';
import type { TaskRecord } from './store.ts';
import type { Running, TaskRunEvent } from './task-options.ts';

/** A run of `record` this engine begins, held with `fence`, with the answers it has so far. */
export function newRunning(scope: Scope, record: TaskRecord, fence: number): Running {
  const { binding, tool, answers } = record;
  const attempt = Math.max(1, record.attempts ?? 1);
  return {
    scope,
    binding,
    tool,
    attempt,
    fence,
    uses: new Map(),
    waiters: [],
    answers: { ...answers },
  };
}

export class RunningTasks {
  readonly #running = new Map<string, Running>();
  readonly #listeners = new Set<(record: TaskRecord) => void>();
  #onIdle: (() => void) | undefined;
  readonly #runner: () => string;
  readonly #onRun: ((event: TaskRunEvent) => void) | undefined;

  /** `runner`: the engine's id; `onRun`: the `tasks.onRun` option. */
  constructor(runner: () => string, onRun?: (event: TaskRunEvent) => void) {
    this.#runner = runner;
    this.#onRun = onRun;
  }

  get size(): number {
    return this.#running.size;
  }

  /** Whether anyone listens to changes (a change nobody runs or watches needs no read). */
  get listened(): boolean {
    return this.#listeners.size > 0;
  }

  get(id: string): Running | undefined {
    return this.#running.get(id);
  }

  has(id: string): boolean {
    return this.#running.has(id);
  }

  /** A run of task `id` begins here. */
  add(id: string, running: Running): void {
    this.#running.set(id, running);
    this.#tell('start', id, running);
  }

  /** The run of task `id` ended: it wrote `outcome`, or was refused or stopped (`reason`). */
  ended(id: string, running: Running, outcome: TaskRunEvent['outcome'], reason?: string): void {
    this.#tell('end', id, running, outcome, reason);
  }

  #tell(
    phase: TaskRunEvent['phase'],
    taskId: string,
    running: Running,
    outcome?: TaskRunEvent['outcome'],
    reason?: string,
  ): void {
    if (this.#onRun === undefined) return;
    const { tool, attempt, fence } = running;
    const event: TaskRunEvent = { phase, taskId, tool, runner: this.#runner(), attempt, fence };
    if (outcome !== undefined) event.outcome = outcome;
    if (reason !== undefined) event.reason = reason;
    try {
      this.#onRun(event);
    } catch {}
  }

  ids(): string[] {
    return [...this.#running.keys()];
  }

  entries(): IterableIterator<[string, Running]> {
    return this.#running.entries();
  }

  /** Task `id` runs here no more; the idle hook hears when none does. */
  forget(id: string): void {
    if (this.#running.delete(id) && this.#running.size === 0) this.#onIdle?.();
  }

  onIdle(fn: () => void): void {
    this.#onIdle = fn;
  }

  onChange(listener: (record: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; one that throws does not keep the others from hearing. */
  emit(record: TaskRecord): void {
    for (const listener of this.#listeners) {
      try {
        listener(record);
      } catch {}
    }
  }
}
