/**
 * `requestLog()`: a handler's `onRequest` that writes one JSON line per finished request to
 * standard output, in batches. A request costs a `JSON.stringify` and a string append; the lines
 * gathered go out in one write at most `flushMs` later (or as soon as `maxBufferedBytes` have
 * gathered), without blocking where the runtime can write asynchronously. What is still
 * gathered when the process exits is written then. Each runtime's adapter gives its own output.
 *
 * @module
 */
import type { RequestEvent } from '@edge-mcp/core';
import { unrefTimer } from './serve.ts';

/** Options of `requestLog()`. */
export interface RequestLogOptions {
  /** Where each batch of lines goes. @default the runtime's standard output */
  write?: (text: string) => void;
  /** The longest a line waits before its batch is written, in ms. @default 100 */
  flushMs?: number;
  /** A batch is written at once when it reaches this many characters. @default 65536 */
  maxBufferedBytes?: number;
  /** What each line says. @default the whole event, `JSON.stringify(event)` */
  format?: (event: RequestEvent) => string;
}

/** How a runtime writes the batches and learns that the process exits. */
export interface LogOutput {
  /** Writes a batch without waiting for it (a runtime with asynchronous writes uses them). */
  write(text: string): void;
  /** Writes what is left, synchronously, as the process exits. */
  writeNow(text: string): void;
  /** Calls `flush` when the process exits. */
  onExit(flush: () => void): void;
}

export const REQUEST_LOG_DEFAULTS = { flushMs: 100, maxBufferedBytes: 65_536 } as const;

function flushBatch(log: BatchedLog): void {
  log.flush();
}

/** The batches of one `requestLog()`. */
class BatchedLog {
  #text = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #write: (text: string) => void;
  readonly #flushMs: number;
  readonly #max: number;
  readonly #format: (event: RequestEvent) => string;

  constructor(write: (text: string) => void, options: RequestLogOptions) {
    this.#write = write;
    this.#flushMs = options.flushMs ?? REQUEST_LOG_DEFAULTS.flushMs;
    this.#max = options.maxBufferedBytes ?? REQUEST_LOG_DEFAULTS.maxBufferedBytes;
    this.#format = options.format ?? JSON.stringify;
  }

  /** `onRequest`: a method, bound once (no closure per request). */
  readonly add = (event: RequestEvent): void => {
    this.#text += `${this.#format(event)}\n`;
    if (this.#text.length >= this.#max) this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(flushBatch, this.#flushMs, this);
      unrefTimer(this.#timer);
    }
  };

  flush(write = this.#write): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const text = this.#text;
    if (text === '') return;
    this.#text = '';
    write(text);
  }
}

/** The `requestLog()` of a runtime whose output is `output`. */
export function requestLogTo(
  output: LogOutput,
  options: RequestLogOptions = {},
): (event: RequestEvent) => void {
  const write = options.write ?? ((text: string) => output.write(text));
  const log = new BatchedLog(write, options);
  output.onExit(() => log.flush(options.write ?? ((text) => output.writeNow(text))));
  return log.add;
}
