/**
 * Waiting in tests, on events, never on time: `within` bounds a wait for a promise, `until` asks
 * a check again until it holds. The bound is only a guard against a wait that never ends; a test
 * that needs it to pass is wrong.
 */

import type { RpcAnswer } from './answer.ts';

/** `promise`, or a rejection naming `what` when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks `check` every `everyMs` until it returns something other than `undefined` or `false`, and
 * resolves with that; rejects naming `what` after `ms`.
 */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  ms = 5_000,
  everyMs = 10,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${ms} ms)`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Asks `get` (a `tasks/get`) until the task's status satisfies `done`, and resolves with the
 * task; an answer without a result (a JSON-RPC error) ends the wait with that message.
 */
export function pollTask(
  get: () => Promise<RpcAnswer>,
  done: (status: string) => boolean,
  what = 'the task',
  ms = 5_000,
): Promise<Record<string, any>> {
  return until(
    async () => {
      const message = (await get()).message;
      const result = message.result as Record<string, any> | undefined;
      if (!result) return message;
      return done(result.status) ? result : undefined;
    },
    what,
    ms,
    5,
  );
}

/** Resolves after `ms`, or at once when `signal` aborts (a tool handler that sleeps in a test). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done);
  });
}

/** Resolves with `signal.reason` once it aborts; rejects after `ms` (a missing abort fails). */
export function aborted(signal: AbortSignal, ms = 5_000): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  let onAbort: (() => void) | undefined;
  const abortedNow = new Promise((resolve) => {
    onAbort = () => resolve(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // A signal that never aborts must not keep the listener once the wait gave up.
  return within(abortedNow, 'the signal to abort', ms).finally(() =>
    signal.removeEventListener('abort', onAbort as () => void),
  );
}
