/**
 * `toNodeListener()`: a `node:http` request listener around a fetch handler.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeReporter } from '../shared/serve.ts';
import type { ErrorReporter, FetchHandler, PlainReply } from '../shared/types.ts';
import { NodeIncoming } from './incoming.ts';
import { createRequest } from './request.ts';
import { sendError, sendResponse } from './send.ts';

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Receives errors that escaped `handler.fetch` (answered with a JSON-RPC 500) or broke a response
   * body mid-stream (connection cut); `serve()` also passes failures of `handler.close()`. Errors
   * caused by the client disconnecting are not reported.
   *
   * @default logs the error with `console.error`
   */
  onError?: ErrorReporter;
}

/** A `node:http` `'request'` listener. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Adapts a fetch handler to `http.createServer()`. Each request becomes a Web `Request` whose
 * `signal` aborts when the client disconnects; the returned `Response` is streamed back with
 * backpressure. The listener never throws and leaves no rejected promise behind.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { toNodeListener } from '@edge-mcp/adapters/node';
 *
 * createServer(toNodeListener(handler)).listen(8787, '127.0.0.1');
 * ```
 */
export function toNodeListener(
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): NodeListener {
  const report = safeReporter(options.onError);
  return (req, res) => {
    void handle(handler, req, res, report);
  };
}

async function handle(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  report: ErrorReporter,
): Promise<void> {
  if (handler.handle)
    return handleLight(handler as Required<Pick<FetchHandler, 'handle'>>, req, res, report);
  let request: Request;
  try {
    request = createRequest(req, res);
  } catch {
    sendError(res, 400);
    return;
  }
  let response: Response;
  try {
    response = await handler.fetch(request);
  } catch (error) {
    if (!causedByDisconnect(request, error)) report(error);
    sendError(res, 500);
    return;
  }
  await sendResponse(res, response, report);
}

/**
 * The fast path for handlers with `handle()`: a light request in, and a complete answer written
 * as it is (status, headers, text); only streamed answers go through the Web stream pipe.
 */
async function handleLight(
  handler: Required<Pick<FetchHandler, 'handle'>>,
  req: IncomingMessage,
  res: ServerResponse,
  report: ErrorReporter,
): Promise<void> {
  let request: NodeIncoming;
  try {
    request = new NodeIncoming(req, res);
  } catch {
    sendError(res, 400);
    return;
  }
  let answer: Response | PlainReply;
  try {
    answer = await handler.handle(request);
  } catch (error) {
    if (!causedByDisconnect(request, error)) report(error);
    sendError(res, 500);
    return;
  }
  if (answer instanceof Response) {
    await sendResponse(res, answer, report);
    return;
  }
  if (res.destroyed) return;
  try {
    const body = answer.body;
    res.writeHead(answer.status, withLength(answer.headers, body));
    res.end(body ?? undefined);
  } catch (error) {
    report(error);
    sendError(res, 500);
  }
}

/**
 * The reply's headers plus a Content-Length (the whole body is known, so no chunked encoding), in
 * one object: `writeHead()` takes it as it is, while a `setHeader()` before it would make Node
 * merge the two header sets one `setHeader()` call at a time.
 */
function withLength(
  headers: Readonly<Record<string, string>>,
  body: string | null,
): Record<string, string | number> {
  const all: Record<string, string | number> = {
    'content-length': body === null ? 0 : Buffer.byteLength(body),
  };
  for (const name in headers) all[name] = headers[name] as string;
  return all;
}

function causedByDisconnect(request: { signal: AbortSignal }, error: unknown): boolean {
  return (
    request.signal.aborted &&
    (error === request.signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}
