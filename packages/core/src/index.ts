/**
 * @module
 * edge-mcp core: a Model Context Protocol server over Streamable HTTP on Web
 * `Request`/`Response`/`AbortSignal`/Web Streams, for every JavaScript runtime.
 */
export { invalidParams, McpError, methodNotFound, ResourceNotFoundError } from './errors.ts';
export { BodyTooLargeError, readBody } from './http/body.ts';
export { createMcpHandler, type McpHandler } from './http/handler.ts';
export type { IncomingRequest } from './http/incoming.ts';
export type {
  HandlerStats,
  McpHandlerOptions,
  RequestEvent,
  SessionEvent,
} from './http/options.ts';
export { type Answer, Reply } from './http/responses.ts';
export { ClientCapabilityError } from './legacy/context.ts';
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  parseEventId,
  type ReplayedEvents,
} from './legacy/event-store.ts';
export {
  Session,
  type SessionHandle,
  type SessionInit,
  type SessionObserver,
  type SessionRecord,
} from './legacy/session.ts';
export type { SessionClosedListener } from './legacy/session-manager.ts';
export {
  MemorySessionManager,
  type MemorySessionManagerOptions,
  SessionLimitError,
  type SessionManager,
} from './legacy/session-manager.ts';
export {
  type AbortReasonType,
  abortReasonType,
  RequestAbortedError,
} from './lifecycle/abort-reason.ts';
export { Scope } from './lifecycle/scope.ts';
export {
  ErrorCode,
  LEGACY_VERSIONS,
  LOG_LEVELS,
  type LogLevel,
  META,
  MODERN_VERSION,
} from './protocol/constants.ts';
export type { JsonObject, RequestId } from './protocol/jsonrpc.ts';
export type { Infer, JsonSchema, Schema } from './schema/standard.ts';
export type { RequestContext } from './server/context.ts';
export {
  McpServer,
  type PromptOptions,
  type Registration,
  type ResourceOptions,
  type ServerInfo,
  type ToolOptions,
} from './server/server.ts';
export type {
  ClientCapabilities,
  CompleteFn,
  ContentBlock,
  Implementation,
  InputRequest,
  PromptMessage,
  PromptResult,
  ResourceContents,
  ResourceResult,
  ToolResult,
} from './server/types.ts';
