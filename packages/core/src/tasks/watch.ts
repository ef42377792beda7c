import type { TaskRecord } from './store.ts';

/** A watch of one task (`TaskEngine.watch`). */
export interface TaskWatch {
  /** Resolves once the task changed since the previous call (or the watch began), or on abort. */
  next(): Promise<void>;
  close(): void;
}

/** What a watch listens to: every change of a task the engine sees. */
interface ChangeSource {
  onChange(listener: (record: TaskRecord) => void): () => void;
}

/** Watches task `id` through `source` until `close()`; `signal` aborting wakes `next()`. */
export function watchTask(source: ChangeSource, id: string, signal: AbortSignal): TaskWatch {
  let changed = false;
  let wake: (() => void) | undefined;
  const fire = () => {
    changed = true;
    wake?.();
  };
  const off = source.onChange((record) => {
    if (record.id === id) fire();
  });
  signal.addEventListener('abort', fire);
  return {
    next: () =>
      new Promise<void>((resolve) => {
        if (changed || signal.aborted) {
          changed = false;
          return resolve();
        }
        wake = () => {
          wake = undefined;
          changed = false;
          resolve();
        };
      }),
    close: () => {
      off();
      signal.removeEventListener('abort', fire);
    },
  };
}
