/**
 * Waits `ms`, or rejects with the signal's reason once it aborts (after `onAbort`): the `sleep`
 * tool of every library's server here, so a cancelled or disconnected call ends its handler.
 * Imports nothing, so no bundle it goes into grows.
 */
export function sleepFor(ms: number, signal: AbortSignal, onAbort?: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        onAbort?.();
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
