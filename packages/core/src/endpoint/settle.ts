import { unrefTimer } from '../lifecycle/timers.ts';

/**
 * How `close()` knows the handler is done: every handler settled and every running task's end
 * recorded (`recorded`), or the timeout (a handler that ignores its signal, a store that does not
 * answer). `watch` hands over the check to call whenever a request or a task ends.
 */
export function settle(
  timeoutMs: number,
  recorded: Promise<void> | undefined,
  idle: () => boolean,
  watch: (check: () => void) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = unrefTimer(setTimeout(resolve, timeoutMs));
    let written = recorded === undefined;
    const check = () => {
      if (!written || !idle()) return;
      clearTimeout(timer);
      resolve();
    };
    watch(check);
    recorded?.then(() => {
      written = true;
      check();
    });
    check();
  });
}
