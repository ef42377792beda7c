/**
 * `toNodeListener()`: a `node:http` request listener around a fetch handler.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import { LightResponse } from '../shared/light-response.ts';
import { causedByDisconnect, safeReporter } from '../shared/serve.ts';
import {
  type ErrorReporter,
  type FetchHandler,
  isHeaders,
  isResponse,
  type PlainReply,
} from '../shared/types.ts';
import { closeAfterAnswer, closesConnection } from './connection-close.ts';
import { NodeIncoming } from './incoming.ts';
import { LazyRequest } from './lazy-request.ts';
import { RequestUrls } from './request.ts';
import { sendError, sendResponse, toNodeHeaders } from './send.ts';

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

const LISTENER_OPTION_KEYS = optionKeys<NodeListenerOptions>()(['onError']);

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
  checkOptionKeys(options, LISTENER_OPTION_KEYS, 'toNodeListener()');
  const report = safeReporter(options.onError);
  const urls = new RequestUrls();
  return (req, res) => {
    void handle(handler, req, res, report, urls);
  };
}

async function handle(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  report: ErrorReporter,
  urls: RequestUrls,
): Promise<void> {
  let incoming: NodeIncoming;
  try {
    incoming = new NodeIncoming(req, res, urls);
  } catch {
    sendError(res, 400);
    return;
  }
  let answer: Response | PlainReply;
  try {
    const entry = handler[HANDLE];
    answer = entry
      ? // The core's own entry: the light request in, a complete answer as plain data out.
        await entry.call(handler, incoming)
      : // Any fetch handler (a Hono app): a Request built only if something needs more than
        // method, URL and headers; `mcp()` finds the light request in it.
        await handler.fetch(new LazyRequest(incoming, req) as unknown as Request);
  } catch (error) {
    // The lazy Request's signal is the light request's.
    if (!causedByDisconnect(incoming, error)) report(error);
    sendError(res, 500);
    return;
  }
  const plain = isResponse(answer) ? LightResponse.plain(answer) : answer;
  if (plain === undefined) {
    await sendResponse(res, answer as Response, report);
    return;
  }
  if (res.destroyed) return;
  try {
    const body = plain.body;
    const headers = withLength(plain.headers, body);
    if (closesConnection(res, plain.status)) closeAfterAnswer(res, headers);
    res.writeHead(plain.status, headers);
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
 *
 * Copied key by key: on Node 20 an object spread (`{ ...headers }`) of these small objects cost
 * ~1 µs and made Node's `for…in` over the copy in `writeHead()` slow too (~2.5 µs per answer in
 * the bench's profile, against ~0.1 µs for this loop).
 */
function withLength(
  headers: Headers | Readonly<Record<string, string>>,
  body: string | null,
): Record<string, string | string[] | number> {
  let all: Record<string, string | string[] | number>;
  if (isHeaders(headers)) all = toNodeHeaders(headers);
  else {
    all = {};
    for (const name in headers) all[name] = headers[name] as string;
  }
  all['content-length'] = body === null ? 0 : Buffer.byteLength(body);
  return all;
}
