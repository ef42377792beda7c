/**
 * Cloudflare Workers entry: the handler built once per isolate, requests passed straight through.
 *
 * workerd reports a departed client only when a write to its response fails (`request.signal`,
 * with the `enable_request_signal` compatibility flag, and the body's cancel both fire then). So
 * a request that may run long must answer with an SSE stream early and keep writing: use
 * `WORKERD_HANDLER_OPTIONS` (stream after 0 ms, keep-alive every 5 s), and a client that leaves is
 * noticed within the keep-alive interval.
 *
 * @module
 */
export type { FetchHandler } from '../shared/types.ts';
export { DurableObjectEventStore, type DurableObjectEventStoreOptions } from './do-event-store.ts';
export { DurableObjectSessionStore } from './do-session-store.ts';
export { DurableObjectTaskStore, type DurableObjectTaskStoreOptions } from './do-task-store.ts';
export { type AlarmUser, ObjectAlarm } from './object-alarm.ts';
export { PRINCIPAL_HEADER, principalOf, type WorkerAuth } from './principal.ts';
export {
  DurableObjectRateLimitStore,
  type DurableObjectRateLimitStoreOptions,
  RateLimitObject,
  type RateLimitObjectOptions,
} from './rate-limit-object.ts';
export { type SessionControl, type SessionInspection, sessionControl } from './session-control.ts';
export {
  defineSessionObject,
  type SessionObject,
  type SessionObjectClass,
  type SessionObjectConfig,
} from './session-object.ts';
export { SessionRegistry } from './session-registry.ts';
export {
  createSessionWorker,
  type IsolateOptions,
  type SessionLimits,
  type SessionWorkerOptions,
  type WorkerTasks,
} from './session-worker.ts';
export {
  createWorker,
  WORKERD_HANDLER_OPTIONS,
  type WorkerContext,
  type WorkerEntry,
} from './worker.ts';
export type { DurableObjectNamespace, DurableObjectState } from './workers-types.ts';
