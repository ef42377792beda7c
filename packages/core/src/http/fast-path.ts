/**
 * The key of a handler's fast entry, for adapters: `handler[HANDLE](request, routed, auth)` takes
 * any `IncomingRequest` (a `Request` is one, and so is an adapter's lighter object) and gives a
 * complete answer as a plain `Reply` the adapter writes itself, a streamed one as a `Response`.
 * `routed: true` says a framework already routed the request to the endpoint (the handler then
 * skips its own `path` check); `auth` is the principal an integration vouched for. A well-known
 * symbol keeps the entry off the user's surface and lets two copies of the core recognise each
 * other.
 */
export const HANDLE: unique symbol = Symbol.for('edge-mcp.handle');
