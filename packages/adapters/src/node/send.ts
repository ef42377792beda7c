/**
 * Web `Response` -> Node `ServerResponse`.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { ErrorCode, errorMessage } from '@edge-mcp/core/adapter';
import { knownText } from '../shared/light-response.ts';
import { INTERNAL_ERROR } from '../shared/serve.ts';
import type { ErrorReporter } from '../shared/types.ts';
import { clientDisconnected } from './abort.ts';
import { closeAfterAnswer, closesConnection } from './connection-close.ts';

/** JSON-RPC body for a request the adapter refuses itself (no request id is known here). */
const BAD_REQUEST = errorMessage(undefined, {
  code: ErrorCode.InvalidRequest,
  message: 'Bad Request',
});

/**
 * The reader of a body being written, on its response so the close listener can be shared (a
 * symbol, not a weak map: no ephemeron per response).
 */
const READER = Symbol('edge-mcp.reader');
type Piping = ServerResponse & { [READER]?: ReadableStreamDefaultReader<Uint8Array> | undefined };

function ignore(): void {}

/**
 * Shared `close` listener (`this` is the response). Cancelling the reader settles a pending
 * `read()` and runs the body's `cancel` callback, which is how a stream learns that nobody listens.
 */
function onResponseClose(this: ServerResponse): void {
  const reader = (this as Piping)[READER];
  if (reader === undefined || this.writableFinished) return;
  (this as Piping)[READER] = undefined;
  reader.cancel(clientDisconnected()).catch(ignore);
}

/**
 * Writes `response` to `res`: status, headers (each Set-Cookie on its own line), then the body,
 * waiting for `drain` whenever the socket is full. Never rejects: write failures after the headers
 * destroy the socket, so the client sees a truncated response rather than a clean end.
 *
 * A body that is complete at once goes out in one write with a Content-Length, not chunked: one
 * whose text is known (the light Response's, even inside a `Response` a framework rebuilt around
 * it), or any other that ends within the tick its first chunk arrives in (a `Response` made from
 * a string, rebuilt by middleware). Event streams are relayed as they come, headers first.
 */
export async function sendResponse(
  res: ServerResponse,
  response: Response,
  report: ErrorReporter,
): Promise<void> {
  let body: ReadableStream<Uint8Array> | null = null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let headers: Record<string, string | string[]>;
  let eventStream = false;
  try {
    body = response.body;
    if (res.destroyed) {
      // The client left while the handler was working; let the body release its resources.
      body?.cancel(clientDisconnected()).catch(ignore);
      return;
    }
    const bodied = body !== null && hasBody(res, response.status) ? body : null;
    const text = bodied ? knownText(response, bodied) : undefined;
    if (bodied && text === undefined) reader = bodied.getReader();
    if (response.statusText !== '') res.statusMessage = response.statusText;
    headers = toNodeHeaders(response.headers);
    if (closesConnection(res, response.status)) closeAfterAnswer(res, headers);
    if (text !== undefined) {
      headers['content-length'] = String(Buffer.byteLength(text));
      res.writeHead(response.status, headers);
      res.end(text);
      return;
    }
    eventStream = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    // Other bodies wait for their first chunks, to learn whether they are whole.
    if (reader === undefined || eventStream) res.writeHead(response.status, headers);
  } catch (error) {
    // Not a Response, a used body, or a header value Node refuses; nothing has been sent yet.
    report(error);
    (reader ?? body)?.cancel(error).catch(ignore);
    sendError(res, 500);
    return;
  }
  if (reader === undefined) {
    body?.cancel().catch(ignore);
    res.end();
    return;
  }
  // Headers would otherwise wait for the first chunk, which an event stream may not send soon.
  if (eventStream) res.flushHeaders();
  (res as Piping)[READER] = reader;
  res.on('close', onResponseClose);
  try {
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
    if (!eventStream) {
      const rest = await sendWhole(res, response.status, headers, reader, report);
      if (rest === undefined) return;
      pending = rest.pending;
    }
    await pipe(reader, res, pending);
    if (!res.destroyed) res.end();
  } catch (error) {
    // A body the server ended on purpose (the core cuts a client that stopped reading its stream
    // with an AbortError) is no failure to report; the client sees the connection cut either way.
    if (!(error instanceof Error && error.name === 'AbortError')) report(error);
    reader.cancel(error).catch(ignore);
    // A body that failed before its first chunk still gets an answer; after, only a cut.
    if (res.headersSent) res.destroy();
    else sendError(res, 500);
  } finally {
    (res as Piping)[READER] = undefined;
  }
}

/** A body gathered whole up to this size is written at once; past it, it streams. */
const WHOLE_LIMIT = 1024 * 1024;

const NEXT_TICK: unique symbol = Symbol('next tick');

function nextTick(): Promise<typeof NEXT_TICK> {
  return new Promise((resolve) => setImmediate(resolve, NEXT_TICK));
}

/**
 * Reads the chunks that are there at once (the first one whenever it comes, then as long as the
 * next read settles before the event loop turns). A body that ended by then is written whole
 * with a Content-Length (the result is then `undefined`: nothing left to do); otherwise the head
 * and the chunks read so far are written, and the result holds the read still in flight (if
 * any), for `pipe` to go on with.
 */
async function sendWhole(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  report: ErrorReporter,
): Promise<{ pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined } | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  let next: Promise<ReadableStreamReadResult<Uint8Array>> | undefined = reader.read();
  // The first chunk is waited for: the head would not leave before it anyway.
  for (let first = true; size <= WHOLE_LIMIT; first = false) {
    const result = first ? await next : await Promise.race([next, nextTick()]);
    if (result === NEXT_TICK) break;
    next = undefined;
    if (result.done) {
      done = true;
      break;
    }
    chunks.push(result.value);
    size += result.value.byteLength;
    next = reader.read();
  }
  if (res.destroyed) {
    reader.cancel(clientDisconnected()).catch(ignore);
    return undefined;
  }
  if (done) headers['content-length'] = String(size);
  try {
    res.writeHead(status, headers);
  } catch (error) {
    report(error);
    reader.cancel(error).catch(ignore);
    sendError(res, 500);
    return undefined;
  }
  if (done) {
    res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    return undefined;
  }
  for (const chunk of chunks) {
    if (!res.write(chunk)) await drained(res);
  }
  return { pending: next };
}

async function pipe(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  res: ServerResponse,
  pending?: Promise<ReadableStreamReadResult<Uint8Array>>,
): Promise<void> {
  for (;;) {
    const chunk = await (pending ?? reader.read());
    pending = undefined;
    if (chunk.done) return;
    // A stream that produces synchronously would otherwise keep writing into a dead socket
    // without ever yielding to the event loop that delivers `close`.
    if (res.destroyed) {
      reader.cancel(clientDisconnected()).catch(ignore);
      return;
    }
    if (!res.write(chunk.value)) await drained(res);
  }
}

/** Resolves on `drain`, or on `close` so that a dead client cannot park the writer forever. */
function drained(res: ServerResponse): Promise<void> {
  // One closure per stall, not per chunk: only taken when the socket buffer is full.
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** HEAD requests and 204/304 answers carry no body; Node would silently drop the writes. */
function hasBody(res: ServerResponse, status: number): boolean {
  return res.req.method !== 'HEAD' && status !== 204 && status !== 304;
}

export function toNodeHeaders(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    if (name !== 'set-cookie') out[name] = value;
  }
  // Set-Cookie cannot be joined into one line; Node writes an array as one line per cookie.
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out['set-cookie'] = cookies;
  return out;
}

/**
 * Answers an error the adapter itself detected: 400 for a request that cannot become a Web
 * `Request`, 500 when the handler failed. Once headers are out, all that is left is to cut the
 * connection.
 */
export function sendError(res: ServerResponse, status: 400 | 500): void {
  if (res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = status === 400 ? BAD_REQUEST : INTERNAL_ERROR;
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  if (closesConnection(res, status)) closeAfterAnswer(res, headers);
  try {
    res
      .writeHead(status, status === 400 ? 'Bad Request' : 'Internal Server Error', headers)
      .end(body);
  } catch {
    res.destroy();
  }
}
