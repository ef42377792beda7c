/**
 * @module
 * edge-mcp core, for storage implementers: the seams where legacy sessions, their replayable
 * SSE events, tasks and rate-limit buckets live (`SessionManager`, `EventStore`, `TaskStore`,
 * `RateLimitStore`), the memory
 * implementations every runtime uses by default, the records a durable implementation stores,
 * and what sessions spanning several instances need (`SessionCluster`, relayed streams,
 * `ClusterBus`, `StoreUnavailableError`).
 */

export { SessionLimitError, StoreUnavailableError } from './errors.ts';
export {
  type BucketTake,
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
  type RateLimitStore,
} from './http/rate-limit.ts';
export type { ClusterBus, ClusterEvent, ClusterHost } from './sessions/cluster.ts';
export {
  type AppendInfo,
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  parseEventId,
  type ReplayedEvents,
} from './sessions/event-store.ts';
export type {
  ClientResponse,
  PendingRequest,
  RemoteSink,
  RemoteStreamLink,
  Session,
  SessionChange,
  SessionIds,
  SessionInit,
  SessionObserver,
  SessionRecord,
  SessionRequest,
  SessionStream,
} from './sessions/session.ts';
export { SessionManager, type SessionManagerOptions } from './sessions/session-manager.ts';
export type { SessionCluster, SessionHolder, SessionHost } from './sessions/session-seams.ts';
export type {
  SessionLoad,
  SessionStore,
  SessionStoreHost,
  StoredSession,
} from './sessions/session-store.ts';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task-store.ts';
export {
  isTerminal,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './tasks/store.ts';
