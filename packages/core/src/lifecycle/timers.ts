/**
 * Lets a timer not keep the process alive, where the runtime has such timers (Node, Bun, Deno's
 * `Deno.unrefTimer` aside); elsewhere (workerd) a timer is a number and this is a no-op.
 */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
