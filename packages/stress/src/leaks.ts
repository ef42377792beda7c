/**
 * Observing what a handler leaves behind without patching globals:
 * - timers (refed or not) through `async_hooks`: every `Timeout` created while tracking, and
 *   whether it was destroyed (fired once, or cleared) by the time of the check;
 * - the process's refed handles through `process.getActiveResourcesInfo()`, against a baseline;
 * - abort listeners left on a request's signal through `events.getEventListeners`;
 * - heap after a full GC (`--expose-gc`, or turned on at run time).
 */
import { createHook } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A timer still alive, with the stack that created it (the first frames outside Node). */
export interface LiveTimer {
  asyncId: number;
  stack: string;
}

/**
 * Records the `Timeout` resources created between `start()` and `stop()`. `async_hooks` with an
 * init hook also turns on promise hooks, which slows promise-heavy code: track a slice of the runs,
 * not all of them.
 */
export class TimerTracker {
  readonly #live = new Map<number, string>();
  #created = 0;
  readonly #hook = createHook({
    init: (asyncId, type) => {
      if (type !== 'Timeout') return;
      this.#created++;
      this.#live.set(asyncId, callerStack());
    },
    destroy: (asyncId) => {
      this.#live.delete(asyncId);
    },
  });

  start(): void {
    this.#live.clear();
    this.#created = 0;
    this.#hook.enable();
  }

  stop(): void {
    this.#hook.disable();
  }

  /** Timers created while tracking that neither fired (one-shot) nor were cleared. */
  live(): LiveTimer[] {
    return [...this.#live].map(([asyncId, stack]) => ({ asyncId, stack }));
  }

  /** Timers created while tracking. */
  get created(): number {
    return this.#created;
  }

  /** Forgets the timers created so far (they belong to something that is checked elsewhere). */
  forget(): void {
    this.#live.clear();
  }
}

function callerStack(): string {
  const stack = new Error().stack ?? '';
  return stack
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('node:') && !line.includes('leaks.ts'))
    .slice(0, 6)
    .join('\n');
}

/** Counts of `process.getActiveResourcesInfo()` by kind (refed timers, sockets, servers …). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Kinds whose count grew from `before` to `after`, with the growth. */
export function grownResources(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [kind, count] of Object.entries(after)) {
    const delta = count - (before[kind] ?? 0);
    if (delta > 0) grown[kind] = delta;
  }
  return grown;
}

/** Abort listeners registered on `signal` right now. */
export function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

let collect: (() => void) | undefined;

/** A full, synchronous garbage collection (turns `--expose-gc` on when Node was not started with it). */
export function gc(): void {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  collect();
}

/** Heap in use after full collections (a few, so weak callbacks and finalizers have run). */
export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  gc();
  return process.memoryUsage().heapUsed;
}

/** Polls `predicate` until it holds; throws with `describe()` after `timeoutMs`. */
export async function waitUntil(
  predicate: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (let delay = 1; !predicate(); delay = Math.min(delay * 2, 25)) {
    if (performance.now() > until)
      throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

export const MiB = 1024 * 1024;
