/**
 * `requestLog()` on Deno: batches written to `Deno.stdout` (each written whole), what is left
 * at the `unload` event.
 *
 * @module
 */
import type { RequestEvent } from '@edge-mcp/core';
import { type LogOutput, type RequestLogOptions, requestLogTo } from '../shared/request-log.ts';
import { denoRuntime } from './types.ts';

export type { RequestLogOptions } from '../shared/request-log.ts';

const encoder = new TextEncoder();

function writeAll(text: string): void {
  const stdout = denoRuntime().stdout;
  let bytes = encoder.encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(stdout.writeSync(bytes));
}

const STDOUT: LogOutput = {
  // One write per batch, off the request path (from the flush timer).
  write: writeAll,
  writeNow: writeAll,
  onExit: (flush) => globalThis.addEventListener('unload', flush, { once: true }),
};

/**
 * `onRequest` that logs one JSON line per finished request to standard output, in batches at
 * most `flushMs` apart (a request pays for `JSON.stringify`, not for a write).
 */
export function requestLog(options?: RequestLogOptions): (event: RequestEvent) => void {
  return requestLogTo(STDOUT, options);
}
