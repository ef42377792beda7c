/**
 * What every edge-mcp test shares (Web APIs only; Node-only helpers are in `@edge-mcp/test-kit/node`):
 * well-formed requests of both protocol eras, as `RequestInit` for `fetch(url, …)` or as a
 * `Request` for `handler.fetch(…)`; the legacy handshake; one SSE parser and reader; reading an
 * answer, JSON or SSE, to its end.
 */
export { type RpcAnswer, readAnswer } from './answer.ts';
export {
  type ContractEventStore,
  type ContractReplay,
  type EventStoreTarget,
  eventStoreContract,
} from './contracts/event-store.ts';
export {
  CONTRACT_TOOLS,
  type ContractCase,
  type ContractHandler,
  type ContractHandlerOptions,
  runCases,
  type SessionStoreTarget,
  sessionStoreContract,
} from './contracts/session-store.ts';
export {
  type ContractTask,
  type ContractTaskStore,
  type TaskStoreTarget,
  taskStoreContract,
} from './contracts/task-store.ts';
export {
  initializeParams,
  type LegacyCallOptions,
  type LegacyOptions,
  legacy,
  legacyDelete,
  legacyDeleteRequest,
  legacyGet,
  legacyGetRequest,
  legacyHeaders,
  legacyMessage,
  legacyRequest,
  notification,
  notificationRequest,
  post,
  postRequest,
} from './legacy.ts';
export {
  type ModernOptions,
  modern,
  modernHeaders,
  modernMessage,
  modernRequest,
} from './modern.ts';
export {
  ACCEPT,
  CLIENT_INFO,
  type Implementation,
  LEGACY,
  MCP_URL,
  MODERN,
  type Params,
  type RequestOptions,
  type RpcMessage,
} from './protocol.ts';
export { type Endpoint, type Initialized, initialize, openSession, send } from './session.ts';
export { parseSse, type SseEvent, SseParser, sseMessages } from './sse-parser.ts';
export { type SseMessage, SseReader } from './sse-reader.ts';
export { aborted, pollTask, sleep, until, within } from './wait.ts';
