/**
 * @module
 * edge-mcp core, for storage implementers: where legacy sessions keep their records
 * (`SessionStore`, under the core's one `SessionManager`), their replayable SSE events
 * (`EventStore`) and rate-limit buckets (`RateLimitStore`), with the memory implementations
 * every runtime uses by default. Tasks are in `@edge-mcp/core/tasks`; sessions that span
 * instances in `@edge-mcp/core/cluster`.
 */
export { SessionLimitError, StoreUnavailableError } from './errors.ts';
export {
  type BucketTake,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitStore,
} from './http/rate-limit.ts';
export {
  type AppendInfo,
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  parseEventId,
  type ReplayedEvents,
} from './sessions/event-store.ts';
export type { SessionChange, SessionInit, SessionRecord } from './sessions/session.ts';
export { SessionManager, type SessionManagerOptions } from './sessions/session-manager.ts';
export type {
  SessionLoad,
  SessionStore,
  SessionStoreHost,
  StoredSession,
} from './sessions/session-store.ts';
