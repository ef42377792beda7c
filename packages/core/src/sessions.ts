/**
 * @module
 * edge-mcp core, for storage implementers: the seams where legacy sessions, their replayable
 * SSE events and tasks live (`SessionManager`, `EventStore`, `TaskStore`), the memory
 * implementations every runtime uses by default, and the records a durable implementation stores.
 */
export {
  type EventStore,
  MemoryEventStore,
  type MemoryEventStoreOptions,
  parseEventId,
  type ReplayedEvents,
} from './sessions/event-store.ts';
export type {
  PendingRequest,
  Session,
  SessionInit,
  SessionObserver,
  SessionRecord,
  SessionRequest,
  SessionStream,
} from './sessions/session.ts';
export {
  MemorySessionManager,
  type MemorySessionManagerOptions,
  type SessionHost,
  SessionLimitError,
  type SessionManager,
} from './sessions/session-manager.ts';
export {
  isTerminal,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './tasks/store.ts';
