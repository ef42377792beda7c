/**
 * @module
 * edge-mcp core, for server authors: an MCP server (`McpServer`) served over Streamable HTTP by
 * `createMcpHandler()` on Web `Request`/`Response`/`AbortSignal`, on every JavaScript runtime.
 *
 * Storage implementers: `@edge-mcp/core/sessions`. Adapter authors: `@edge-mcp/core/adapter`.
 */
export type { AuthInfo, TokenVerifier } from './auth/auth-info.ts';
export { DEFAULTS, type Limits } from './defaults.ts';
export type {
  Instrumentation,
  RequestObservation,
  RequestStart,
} from './endpoint/instrumentation.ts';
export { createMcpHandler, type McpHandler } from './endpoint/mcp-handler.ts';
export type {
  CloseOptions,
  HandlerStats,
  McpHandlerOptions,
  RefusalReason,
  RequestEvent,
  SessionEvent,
} from './endpoint/options.ts';
export { type ServeTasksOptions, serveTasks, type TaskWorker } from './endpoint/serve-tasks.ts';
export {
  ClientCapabilityError,
  InvalidTokenError,
  invalidParams,
  McpError,
  methodNotFound,
  ResourceNotFoundError,
  SkillError,
  type SkillRule,
  type TokenRejection,
} from './errors.ts';
export type { CorsOptions } from './http/cors.ts';
export type { TrustProxy } from './http/forwarded.ts';
export type { RateLimit, RateLimitOptions } from './http/rate-limit.ts';
export type { RequestHeaders, RequestInfo } from './http/request-view.ts';
export {
  type AbortReasonType,
  abortReasonType,
  RequestAbortedError,
} from './lifecycle/abort-reason.ts';
export {
  ErrorCode,
  LEGACY_VERSIONS,
  LOG_LEVELS,
  type LogLevel,
  MODERN_VERSION,
} from './protocol/constants.ts';
export type { JsonObject, RequestId } from './protocol/jsonrpc.ts';
export type { Infer, JsonSchema, Schema, SchemaShape } from './schema/standard.ts';
export type { RequestContext, SessionHandle } from './server/context.ts';
export type {
  Icon,
  PromptHandler,
  PromptOptions,
  Registration,
  ResourceOptions,
  SchemaOption,
  ServerInfo,
  ToolHandler,
  ToolOptions,
} from './server/options.ts';
export type { ListKind, ResourceHandler, TemplateHandler } from './server/registry.ts';
export { type AuthOptions, InsufficientScopeError } from './server/resource-server.ts';
export { McpServer } from './server/server.ts';
export type { SkillFiles, SkillOptions } from './server/skill-entry.ts';
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
export type { VisibleTo } from './server/visibility.ts';
export type { TaskOptions, TaskRunEvent } from './tasks/engine.ts';
