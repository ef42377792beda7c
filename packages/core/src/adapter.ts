/**
 * @module
 * edge-mcp core, for adapter authors: the light request the endpoint reads, the plain answers it
 * gives through its fast entry (`handler[HANDLE]`), body reading with a limit, the era rule and
 * the task route for adapters that route before the core (the Cloudflare session Worker), the
 * protocol's header names and error codes, and the check that refuses misspelt option names.
 */
export { DEFAULTS } from './defaults.ts';
export type { AdapterRefusal } from './endpoint/adapter-refusal.ts';
export type { FastEntry } from './endpoint/mcp-handler.ts';
export { BodyTooLargeError, BudgetExceededError, readBody } from './http/body.ts';
export { HANDLE, REFUSE } from './http/fast-path.ts';
export type { BodyCharge, DisconnectListener, IncomingRequest } from './http/incoming.ts';
export type { Answer, Reply } from './http/responses.ts';
export { pathOf } from './http/url.ts';
export {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  HEADER,
  LEGACY_VERSIONS,
  META,
  MODERN_VERSION,
} from './protocol/constants.ts';
export { classifyEra, type Era, type HeaderSource } from './protocol/era.ts';
export { errorMessage } from './protocol/jsonrpc.ts';
export { checkOptionKeys, optionKeys } from './schema/option-keys.ts';
export { type TaskRoute, taskRoute } from './tasks/task-routing.ts';
