/**
 * Node request body -> Web `ReadableStream`, with backpressure and a cancel that keeps a keep-alive
 * connection usable.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { clientDisconnected, exchangeEnded } from './abort.ts';

/** Buffer up to 64 KiB before pausing the socket; the size is counted in bytes, not chunks. */
const STRATEGY: QueuingStrategy<Uint8Array> = {
  highWaterMark: 64 * 1024,
  size: (chunk) => chunk.byteLength,
};

/**
 * The controller of a body still being forwarded, on its request so listeners can be shared (a
 * symbol, not a weak map: no ephemeron per request).
 */
const BODY = Symbol('edge-mcp.body');
type Forwarding = IncomingMessage & {
  [BODY]?: ReadableStreamDefaultController<Uint8Array> | undefined;
};

// Shared listeners: EventEmitter calls them with the request as `this`, so none is allocated per
// request. Each looks its controller up and does nothing once the body has been settled.
function onData(this: IncomingMessage, chunk: Buffer): void {
  const controller = (this as Forwarding)[BODY];
  if (controller === undefined) return;
  controller.enqueue(chunk);
  if ((controller.desiredSize ?? 0) <= 0) this.pause();
}

function onEnd(this: IncomingMessage): void {
  (this as Forwarding)[BODY]?.close();
  (this as Forwarding)[BODY] = undefined;
}

function onError(this: IncomingMessage, error: Error): void {
  (this as Forwarding)[BODY]?.error(error);
  (this as Forwarding)[BODY] = undefined;
}

/** `close` without `end` means the connection went away mid-body. */
function onClose(this: IncomingMessage): void {
  (this as Forwarding)[BODY]?.error(clientDisconnected());
  (this as Forwarding)[BODY] = undefined;
}

/** One small object per body; its methods live on the prototype. */
class NodeBodySource implements UnderlyingDefaultSource<Uint8Array> {
  readonly req: IncomingMessage;

  constructor(req: IncomingMessage) {
    this.req = req;
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    (this.req as Forwarding)[BODY] = controller;
    this.req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  }

  pull(): void {
    this.req.resume();
  }

  cancel(): void {
    discardBody(this.req);
  }
}

/** Wraps the body of `req` in a Web stream that pulls from the socket only as it is read. */
export function createBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream(new NodeBodySource(req), STRATEGY);
}

/**
 * Stops forwarding the body and reads the rest of it off the wire into nothing, as Node does for
 * unread bodies. Destroying the request instead would drop a keep-alive connection, and leaving it
 * paused would stall the next request on it. Readers still waiting get an AbortError.
 */
export function discardBody(req: IncomingMessage): void {
  const controller = (req as Forwarding)[BODY];
  if (controller === undefined) return;
  (req as Forwarding)[BODY] = undefined;
  controller.error(exchangeEnded());
  req.off('data', onData);
  req.resume();
}
