/** Payloads and small helpers shared by the fixture files. */

// A 1×1 red PNG and a tiny WAV: the scenarios only need well-formed, non-empty data.
export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

export const nameSchema = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (already aborted: at once). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function text(value: string) {
  return { type: 'text' as const, text: value };
}
