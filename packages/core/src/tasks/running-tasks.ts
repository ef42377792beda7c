/**
 * The tasks a `TaskEngine` runs on this instance, and who listens to task changes: the engine's
 * bookkeeping, apart from its protocol rules.
 *
 * @module
 */
import type { Scope } from '../lifecycle/scope.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { TaskRecord } from './store.ts';
import type { Running } from './task-options.ts';

/** A task this engine begins to run, held with `fence`, with the answers it has so far. */
export function newRunning(
  scope: Scope,
  binding: string,
  fence: number,
  answers: Record<string, JsonObject> | undefined,
): Running {
  return { scope, binding, fence, uses: new Map(), waiters: [], answers: { ...answers } };
}

export class RunningTasks {
  readonly #running = new Map<string, Running>();
  readonly #listeners = new Set<(record: TaskRecord) => void>();
  #onIdle: (() => void) | undefined;

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

  add(id: string, running: Running): void {
    this.#running.set(id, running);
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
