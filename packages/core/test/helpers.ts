/**
 * Core-only test helpers: a request through a handler in-process, a signal's abort. Requests of
 * both eras, the SSE reader and answer reading come from @edge-mcp/test-kit.
 */
import { type ModernOptions, modernRequest, type RpcAnswer, readAnswer } from '@edge-mcp/test-kit';
import type { McpHandler } from '../src/index.ts';

/** A 2026-07-28 request through `handler`, its answer read to the end. */
export async function call(
  handler: McpHandler,
  method: string,
  params?: Record<string, unknown>,
  options?: ModernOptions,
): Promise<RpcAnswer> {
  return readAnswer(await handler.fetch(modernRequest(method, params, options)));
}

/** Resolves when `signal` aborts; rejects after `ms` so a missing abort fails the test instead of hanging it. */
export function aborted(signal: AbortSignal, ms = 5000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(signal.reason);
    const timer = setTimeout(() => reject(new Error(`signal did not abort within ${ms} ms`)), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(signal.reason);
      },
      { once: true },
    );
  });
}
