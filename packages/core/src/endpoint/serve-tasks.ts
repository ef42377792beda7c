/**
 * `serveTasks()`: a task worker, a process that serves no HTTP and runs the tasks of a store
 * shared with the HTTP instances (`tasks: { run: 'workers' }` on them, or beside instances that
 * run their own): it claims queued tasks and those whose runner was lost, with the same tools and
 * the same engine, so long CPU-heavy tools and request handling scale apart.
 *
 * @module
 */
import type { McpServer } from '../server/server.ts';
import type { TaskStore } from '../tasks/store.ts';
import type { TaskOptions } from '../tasks/task-options.ts';
import { createMcpHandler } from './mcp-handler.ts';

export interface ServeTasksOptions extends Omit<TaskOptions, 'store' | 'run'> {
  /** The store the HTTP instances write their tasks to (one that instances share: Redis). */
  store: TaskStore;
  /** Aborting it is `close()`: running tasks that may run again are let go for other runners. */
  signal?: AbortSignal;
}

/** A running task worker. */
export interface TaskWorker {
  /** Tasks running here now. */
  readonly running: number;
  /**
   * Stops claiming; tasks running here that may run again are let go (another runner claims
   * them), the others are recorded `failed` (`shutdown`); resolves once their handlers ended.
   */
  close(): Promise<void>;
}

/**
 * Runs the tasks of `options.store` with `server`'s tools, in this process, without HTTP.
 *
 * @example
 * ```ts
 * const backend = await redisBackend({ url: 'redis://127.0.0.1:6379' });
 * const worker = serveTasks(createServer(), { store: backend.options.tasks.store });
 * process.once('SIGTERM', async () => { await worker.close(); await backend.close(); });
 * ```
 */
export function serveTasks(server: McpServer, options: ServeTasksOptions): TaskWorker {
  const { signal, ...tasks } = options;
  // The handler's engine, tools and shutdown, with nothing an HTTP exchange needs.
  const handler = createMcpHandler(server, {
    tasks: { ...tasks, run: 'here' },
    sessions: false,
    legacy: false,
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= handler.close();
    return closing;
  };
  if (signal?.aborted) void close();
  else signal?.addEventListener('abort', () => void close(), { once: true });
  return {
    get running() {
      return handler.stats().tasks;
    },
    close,
  };
}
