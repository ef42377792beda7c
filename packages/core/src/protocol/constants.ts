/** The stateless revision served per request (no sessions, `_meta` on every request). */
export const MODERN_VERSION = '2026-07-28';

/** Revisions that use `initialize` and sessions, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

/**
 * The revision a legacy request is taken to speak when it names none: the spec tells servers to
 * assume 2025-03-26 when a session-less request carries no MCP-Protocol-Version header.
 */
export const DEFAULT_LEGACY_VERSION: LegacyVersion = '2025-03-26';

/** What each legacy revision brought, as named rules (not string comparisons at each use). */
export const REVISION_RULES = {
  /** JSON-RPC batches: 2025-03-26 only (2025-06-18 dropped them). */
  batches: (version: string): boolean => version === '2025-03-26',
  /** A priming event (an id to resume from) opens every stream: 2025-11-25. */
  primedStreams: (version: string): boolean => version === '2025-11-25',
  /** The (experimental) tasks of `params.task`: 2025-11-25, the one revision before 2026-07-28. */
  tasks: (version: string): boolean => version === '2025-11-25',
} as const;

/** Reserved `_meta` keys of revision 2026-07-28. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The tasks extension of 2026-07-28 (`capabilities.extensions` key, both sides). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The skills extension (SEP-2640): its `capabilities.extensions` key, the limits it sets on one
 * skill, and the names it fixes. Both eras declare it; 2026-07-28 adds cache hints to its results.
 */
export const SKILLS = {
  extension: 'io.modelcontextprotocol/skills',
  /** The manifest every skill has at its root. */
  manifest: 'SKILL.md',
  /** Entries of one skill's `resources`, `SKILL.md` included. */
  maxResources: 512,
  /** Bytes of one skill's files together (16 MiB). */
  maxTotalBytes: 16 * 1024 * 1024,
  /** Agent Skills names: 1-64 of lowercase letters, digits and single inner hyphens. */
  name: /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/,
  /** Longest `description` the Agent Skills specification allows. */
  maxDescriptionLength: 1024,
  /** `mimeType` of a directory resource (`resources/directory/read`). */
  directoryMimeType: 'inode/directory',
} as const;

/** `_meta` key that ties a 2025-11-25 message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** Header names, lower-cased as `Headers` returns them. */
export const HEADER = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  paramPrefix: 'mcp-param-',
  sessionId: 'mcp-session-id',
  lastEventId: 'last-event-id',
  accept: 'accept',
  contentType: 'content-type',
  contentLength: 'content-length',
  allow: 'allow',
  retryAfter: 'retry-after',
  origin: 'origin',
  /** Reverse proxies (read only with `trustProxy`). */
  forwarded: 'forwarded',
  xForwardedFor: 'x-forwarded-for',
  xForwardedHost: 'x-forwarded-host',
  xForwardedProto: 'x-forwarded-proto',
} as const;

/** JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * Implementation-defined server error, as the SDKs use it at the transport level: a method
   * the endpoint does not serve (405), a budget exceeded (429, 503).
   */
  ServerError: -32000,
  /** Implementation-defined (the SDKs' choice): an unknown or ended legacy session (404). */
  SessionNotFound: -32001,
  /** Legacy revisions only; 2026-07-28 uses InvalidParams. */
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** RFC 5424 levels in increasing severity, as MCP logging uses them. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
