/**
 * `requestLog()` on Node (and on Bun, whose `process` is Node's): batches written to
 * `process.stdout`, what is left at the process's `exit`.
 *
 * @module
 */
import type { RequestEvent } from '@edge-mcp/core';
import { type LogOutput, type RequestLogOptions, requestLogTo } from '../shared/request-log.ts';

export type { RequestLogOptions } from '../shared/request-log.ts';

const STDOUT: LogOutput = {
  write: (text) => process.stdout.write(text),
  // A pipe or file is written synchronously on Linux and macOS, a terminal too: safe at exit.
  writeNow: (text) => process.stdout.write(text),
  onExit: (flush) => process.once('exit', flush),
};

/**
 * `onRequest` that logs one JSON line per finished request to standard output, in batches at
 * most `flushMs` apart (a request pays for `JSON.stringify`, not for a write).
 */
export function requestLog(options?: RequestLogOptions): (event: RequestEvent) => void {
  return requestLogTo(STDOUT, options);
}
