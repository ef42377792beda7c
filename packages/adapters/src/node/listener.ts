/**
 * `toNodeListener()`: a `node:http` request listener around a fetch handler.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { safeReporter } from '../shared/serve.ts';
import type { ErrorReporter, FetchHandler } from '../shared/types.ts';
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

function causedByDisconnect(request: Request, error: unknown): boolean {
  return (
    request.signal.aborted &&
    (error === request.signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}
