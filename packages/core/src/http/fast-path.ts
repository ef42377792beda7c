/**
 * The key of a handler's fast entry, for adapters: `handler[HANDLE](request, routed, auth)` takes
 * any `IncomingRequest` (a `Request` is one, and so is an adapter's lighter object) and gives a
 * complete answer as a plain `Reply` the adapter writes itself, a streamed one as a `Response`.
 * `routed: true` says a framework already routed the request to the endpoint (the handler then
 * skips its own `path` check); `auth` is the principal an integration vouched for, or the
 * `InvalidTokenError` with which it rejected the request's token (answered 401 with its reason). A well-known
 * symbol keeps the entry off the user's surface and lets two copies of the core recognise each
 * other.
 */
export const HANDLE: unique symbol = Symbol.for('edge-mcp.handle');

/**
 * The key of a handler's refusal entry, for adapters that refuse a request before the handler
 * sees it (the Cloudflare session Worker: a session id no object can hold, a body over its limit,
 * a token its authenticating layer rejected, a session cap): `handler[REFUSE](request, reason,
 * message?, id?)`
 * answers it as the handler answers its own refusals (a 401 with its challenge, say) and reports
 * it to the handler's request log and instrumentation.
 */
export const REFUSE: unique symbol = Symbol.for('edge-mcp.refuse');
