/**
 * @module
 * edge-mcp core, for task store implementers: where tasks (the `io.modelcontextprotocol/tasks`
 * extension) keep their records (`TaskStore`), and the bounded memory store every runtime uses by
 * default.
 */
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task-store.ts';
export {
  fenced,
  isTerminal,
  newTaskId,
  type StoredCall,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './tasks/store.ts';
