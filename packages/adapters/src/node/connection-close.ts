/**
 * Closing the connection after a refused upload without losing the answer.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LINGER_BYTES, LINGER_MS, smallDeclared } from '../shared/refused-body.ts';

export { DISCARD_BYTES, LINGER_BYTES, LINGER_MS } from '../shared/refused-body.ts';

/**
 * Whether the connection must close once this answer is written: an error answer (a 401, 403,
 * 413, 429, …) while the request's body is still arriving. Keeping the connection would make Node
 * read all of the refused upload off the wire into nothing, however large (34.6 GiB in 60 s after
 * one 401). A body that has arrived whole, or a declared one of at most DISCARD_BYTES, is no cost:
 * keep-alive goes on.
 */
export function closesConnection(res: ServerResponse, status: number): boolean {
  return status >= 400 && !res.req.complete && !smallDeclared(res.req.headers['content-length']);
}

/** How often a lingering connection checks its deadline and what it has read. */
const LINGER_CHECK_MS = 5;

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
 * client closes, for at most LINGER_BYTES; past them it stops reading, so the client's writes
 * wait on a full window (no reset yet) while it reads the answer, and it is destroyed at
 * LINGER_MS. A client that read the answer and closed frees it before.
 */
export function closeAfterAnswer(res: ServerResponse, headers: Record<string, unknown>): void {
  headers.connection = 'close';
  const socket = res.socket as LingeringSocket | null;
  if (socket !== null && !socket.destroyed) socket.destroySoon = lingeringDestroySoon;
}

/** The libuv handle under a socket, which the HTTP parser reads from directly. */
interface ReadableHandle {
  readStop?(): number;
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
  if (performance.now() >= deadline) socket.destroy();
  else if (socket.bytesRead > maxRead) {
    // A cut now would reset a connection whose client may not have read the answer yet (a busy
    // client reads it late): stop reading instead, and cut at the deadline. Without a handle to
    // stop (not a TCP socket), cut now.
    const handle = (socket as Socket & { _handle?: ReadableHandle | null })._handle;
    if (typeof handle?.readStop === 'function') handle.readStop();
    else socket.destroy();
  }
}
