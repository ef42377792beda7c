/**
 * Abort reasons used by the Node adapter.
 *
 * @module
 */

/** Reason for `request.signal` and for cancelled response bodies when the client goes away. */
export function clientDisconnected(): DOMException {
  // An AbortError DOMException, like the one fetch() itself uses.
  return new DOMException('The client disconnected before the response was complete', 'AbortError');
}

/** Reason for request bodies still unread when their exchange is over. */
export function exchangeEnded(): DOMException {
  return new DOMException('The exchange ended before the request body was read', 'AbortError');
}
