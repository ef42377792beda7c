/**
 * Closing the connection after a refused upload without losing the answer.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long, at most, a connection closed after a 413 goes on reading the refused upload (into
 * nothing) before it is cut: long enough for a client still sending to read the answer it got;
 * short, so a refused client cannot hold the connection.
 */
export const LINGER_MS = 2_000;

/** How many more bytes of the refused upload it reads, at most, in that time. */
export const LINGER_BYTES = 8 * 1024 * 1024;

/**
 * Whether the connection must close once this answer is written: after a 413 the rest of the
 * refused body is still coming. Keeping the connection would make Node read all of it off the
 * wire into nothing, however large (a refused upload was drained to its 512th MiB). Other unread
 * bodies are still drained, so keep-alive goes on (they were not refused; `requestTimeout` bounds
 * how long that may take).
 */
export function closesConnection(status: number): boolean {
  return status === 413;
}

/** How often a lingering connection checks its deadline and what it has read. */
const LINGER_CHECK_MS = 25;

interface LingeringSocket extends Socket {
  destroySoon(): void;
}

/**
 * Marks the answer `Connection: close` and makes that close a lingering one. Node ends such a
 * connection with `socket.destroySoon()`: our FIN, then the socket destroyed once it is flushed.
 * Upload bytes that arrive after that make the kernel answer with a reset, and a client still
 * writing its body (Node's `fetch`, for one) then fails with EPIPE or ECONNRESET, often before it
 * has read the 413 waiting in its buffer. So the socket ends its side and goes on reading the
 * upload into nothing (Node's parser discards the rest of a finished request's body) until the
 * client closes, for at most about LINGER_MS and LINGER_BYTES; then it is destroyed.
 */
export function closeAfterAnswer(res: ServerResponse, headers: Record<string, unknown>): void {
  headers.connection = 'close';
  const socket = res.socket as LingeringSocket | null;
  if (socket !== null && !socket.destroyed) socket.destroySoon = lingeringDestroySoon;
}

function lingeringDestroySoon(this: LingeringSocket): void {
  if (this.destroyed) return;
  if (this.writable) this.end();
  // The parser reads the socket itself (no 'data' events), so the bytes are checked on a timer.
  // A cold path (refused uploads only): a timer and a listener per connection are fine here.
  const timer = setInterval(
    checkLinger,
    LINGER_CHECK_MS,
    this,
    performance.now() + LINGER_MS,
    this.bytesRead + LINGER_BYTES,
  );
  timer.unref();
  this.once('close', () => clearInterval(timer));
}

function checkLinger(socket: Socket, deadline: number, maxRead: number): void {
  if (socket.bytesRead > maxRead || performance.now() >= deadline) socket.destroy();
}
