/**
 * Requests refused before their method ran, told apart by a reason code: the answer carries it
 * (`Reply.refusal`, set by `refuse()` in responses.ts) up to the endpoint, which reports one
 * `outcome: 'refused'` request event for it. Without that, a 401 or a 403 behind a proxy would
 * leave no trace in any log.
 *
 * @module
 */
/**
 * Why a request was refused before dispatch. The HTTP status follows from it (see each); the
 * same reason is the `reason` of the request event and the `edge_mcp.refusal.reason` attribute.
 */
export type RefusalReason =
  /** 503: the handler is closing. */
  | 'shutting-down'
  /** 404: another path than the endpoint's. */
  | 'path'
  /** 403: a Host that is neither loopback nor in `allowedHosts` (DNS rebinding). */
  | 'host-not-allowed'
  /** 403: an Origin that is neither loopback nor allowed. */
  | 'origin-not-allowed'
  /** 503: `limits.maxInFlight` requests are in flight. */
  | 'capacity'
  /** 429: over a bucket of the `rateLimit` option (per principal, per tool, or in total). */
  | 'rate-limited'
  /** 429: `limits.maxInFlightPerPrincipal` requests of the principal are running. */
  | 'principal-in-flight'
  /** 503: the body does not fit `limits.maxInFlightBytes` (the bytes of every request running). */
  | 'in-flight-bytes'
  /** 429: the body does not fit `limits.maxInFlightBytesPerPrincipal` of its principal. */
  | 'principal-in-flight-bytes'
  /** 401: no Authorization header. */
  | 'token-missing'
  /** 401: an Authorization header that is not `Bearer <token>`. */
  | 'token-scheme'
  /** 401: a token that cannot be read (not a JWT, bad encoding, too long). */
  | 'token-malformed'
  /** 401: `exp` has passed. */
  | 'token-expired'
  /** 401: `nbf` or `iat` lies in the future. */
  | 'token-not-yet-valid'
  /** 401: issued for another resource (`aud`). */
  | 'token-audience'
  /** 401: issued by an authorization server this server does not trust (`iss`). */
  | 'token-issuer'
  /** 401: no key of the issuer verifies its signature (or an algorithm not allowed). */
  | 'token-signature'
  /** 401: its claims are not what this server needs (`typ`, a principal, required scopes). */
  | 'token-claims'
  /** 401: refused by the verifier for a reason it did not give. */
  | 'token-invalid'
  /** 503: the verifier could not decide (its authorization server is unreachable). */
  | 'auth-unavailable'
  /** 405: a method the endpoint does not serve (or GET/DELETE without sessions). */
  | 'method-not-allowed'
  /** 415: a POST whose Content-Type is not application/json. */
  | 'content-type'
  /** 406: an Accept that does not admit what the answer may be. */
  | 'accept'
  /** 413: a body over `maxBodyBytes`. */
  | 'body-too-large'
  /** 400: a body that could not be read. */
  | 'body-unreadable'
  /** 400: a body that is not JSON. */
  | 'parse-error'
  /** 400: JSON that is not a JSON-RPC request (or a response or batch where none may be). */
  | 'invalid-message'
  /** 400: a batch over `limits.maxBatchSize`, or an empty one. */
  | 'batch'
  /** 400: a protocol revision the endpoint does not serve. */
  | 'unsupported-version'
  /** 400: MCP headers that disagree with the body, or 2026-07-28 `_meta` that is not valid. */
  | 'invalid-headers'
  /** 404: a 2026-07-28 method the server does not offer. */
  | 'method-not-found'
  /** 400: `initialize` parameters that are missing or over their limits. */
  | 'invalid-initialize'
  /** 400: a legacy request without the Mcp-Session-Id header. */
  | 'session-required'
  /** 404: a session id this server does not know (or one that ended). */
  | 'session-unknown'
  /** 404 (the same answer as `session-unknown`): a session another principal opened. */
  | 'session-principal'
  /** 503: the session manager is full and can make no room now. */
  | 'session-limit'
  /** 429: the principal has its quota of sessions (`maxSessionsPerPrincipal`), every one busy. */
  | 'session-quota'
  /** 429: `limits.maxInFlightPerSession` requests of the session are in flight. */
  | 'session-busy'
  /** 429: `limits.maxStreamsPerSession` streams of the session are open. */
  | 'session-streams'
  /** 400: a Last-Event-ID that names no event of this server. */
  | 'last-event-id'
  /** 503: session, event or task storage cannot be reached. */
  | 'storage-unavailable';
