import { ErrorCode } from './protocol/constants.ts';

/**
 * A JSON-RPC error with the HTTP status it is answered with.
 * Throw it from a handler to answer with exactly this error instead of a generic one.
 */
export class McpError extends Error {
  override readonly name: string = 'McpError';
  readonly code: number;
  readonly data: unknown;
  /** HTTP status of the response carrying this error (modern era). @default 200 */
  readonly status: number;

  constructor(
    code: number,
    message: string,
    options: { data?: unknown; status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = options.data;
    this.status = options.status ?? 200;
  }
}

/** -32602 with HTTP 200: a request the server understood but cannot serve (unknown tool, bad arguments). */
export function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, { data });
}

/** -32601: unknown or unadvertised method; 404 in the modern era. */
export function methodNotFound(method: string): McpError {
  return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, { status: 404 });
}

/** The client did not declare what a server→client request needs (a tool error, not a protocol one). */
export class ClientCapabilityError extends Error {
  override readonly name = 'ClientCapabilityError';
}

/**
 * Throw from a resource or template reader when the resource does not exist. It is answered with
 * the code of the request's era: -32602 in 2026-07-28, -32002 in the legacy revisions.
 */
export class ResourceNotFoundError extends Error {
  override readonly name = 'ResourceNotFoundError';
  readonly uri: string;
  constructor(uri: string) {
    super(`Resource not found: ${uri}`);
    this.uri = uri;
  }
}

/** Which rule of the skills extension a skill broke (`SkillError.reason`). */
export type SkillRule =
  /** Its `name` (or a prefix segment) does not follow the naming rules. */
  | 'name'
  /** `SKILL.md` is missing, or its front matter is not YAML this server reads, or lacks a field. */
  | 'frontmatter'
  /** A file path is not a relative path of plain segments. */
  | 'path'
  /** More than 512 files (`SKILL.md` included). */
  | 'resources'
  /** More than 16 MiB of files together. */
  | 'size';

/**
 * A skill that breaks a rule of the skills extension (SEP-2640): `server.skill()` throws it, so a
 * skill no host is bound to accept is never served. -32602 (Invalid params) when it reaches a
 * client, as when a tool that registers skills throws it.
 */
export class SkillError extends McpError {
  override readonly name: string = 'SkillError';
  readonly rule: SkillRule;
  constructor(rule: SkillRule, message: string) {
    super(ErrorCode.InvalidParams, message, { data: { rule } });
    this.rule = rule;
  }
}

/**
 * Where sessions, events or tasks live cannot be reached now (a remote store is down or does not
 * answer). A request that needs it is answered `503` with `Retry-After` (JSON-RPC -32000,
 * "Session storage is unavailable"). Exported for store implementers from `@edge-mcp/core/sessions`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** The `Retry-After` of the 503. */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 1, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * No session can be opened now: the server's cap is reached and every session is busy (503), or
 * the asking principal's own quota is (429). The initialize is answered with `Retry-After`.
 * Exported for store implementers from `@edge-mcp/core/sessions` (a store's `create` may throw it).
 */
export class SessionLimitError extends Error {
  override readonly name = 'SessionLimitError';
  readonly retryAfterSeconds: number;
  /** Whose limit: the server's (503), or the asking principal's own quota (429). */
  readonly scope: 'server' | 'principal';
  constructor(limit: number, retryAfterSeconds: number, scope: 'server' | 'principal' = 'server') {
    super(
      scope === 'server'
        ? `Too many sessions (limit ${limit})`
        : `This client has ${limit} sessions, every one busy`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
    this.scope = scope;
  }
}

/** Which check a bearer token failed, as a token verifier tells it. */
export type TokenRejection =
  /** Not a token this server can read (not a JWT, a bad encoding, too long). */
  | 'malformed'
  /** Its expiry has passed. */
  | 'expired'
  /** Its not-before or issued-at time lies in the future. */
  | 'not-yet-valid'
  /** Issued for another resource. */
  | 'audience'
  /** Issued by an authorization server this server does not trust. */
  | 'issuer'
  /** No trusted key verifies its signature (or it is signed with an algorithm not allowed). */
  | 'signature'
  /** Its claims are not what this server needs (token type, principal, required scopes). */
  | 'claims';

/**
 * Thrown by a token verifier for a token that is not valid here, naming the check it failed: the
 * 401's `error_description` says which (RFC 6750 §3 allows it; the token is never echoed), and
 * the request log's `reason` is `token-<rejection>`. A verifier may also return `undefined`
 * (refused, no reason given); anything else it throws means it could not decide (a 503).
 */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
  readonly rejection: TokenRejection;
  constructor(rejection: TokenRejection, options?: { cause?: unknown }) {
    super(`The access token was refused: ${rejection}`, options);
    this.rejection = rejection;
  }
}

/** -32603 with `message`: the server itself got something wrong (a handler's broken result). */
export function internalError(message: string): McpError {
  return new McpError(ErrorCode.InternalError, message);
}

/**
 * The JSON-RPC error object for what a handler threw: an McpError as it is, a missing resource
 * with the era's `resourceNotFound` code, anything else -32603 with no detail.
 */
export function rpcError(
  error: unknown,
  resourceNotFound: number,
): { code: number; message: string; data?: unknown } {
  if (error instanceof ResourceNotFoundError)
    return { code: resourceNotFound, message: error.message, data: { uri: error.uri } };
  if (error instanceof McpError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  // Anything else is a fault of the server (a handler's bug, an engine error such as a stack
  // overflow): its message is the server's business, not the client's.
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}
