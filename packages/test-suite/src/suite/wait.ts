/** Waits of the shared suite on what a target reports: its request log and its /health counters. */
import { until } from '@edge-mcp/test-kit';

/** Resolves with the first log line matching `predicate`, polling the target's /__log. */
export function waitForLog<T extends Record<string, unknown>>(
  log: () => Promise<T[]>,
  predicate: (line: T) => boolean,
  ms = 15_000,
): Promise<T> {
  return until(async () => (await log()).find(predicate), 'a matching log line', ms, 25);
}

/**
 * Resolves once a request is running on the server: its answer has started (a streamed answer,
 * as on workerd) or the server counts it in flight (/health, where the handler lives in-process).
 */
export async function running(url: string, answer: Promise<unknown>): Promise<void> {
  let started = false;
  const settled = answer.then(
    () => {
      started = true;
    },
    () => {
      started = true;
    },
  );
  while (!started) {
    const health = (await (await fetch(`${url}/health`)).json()) as { inFlight: number };
    if (health.inFlight >= 1) return;
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 25))]);
  }
}
