/**
 * Tasks in one process: the default `TaskStore`. Bounded in all and per principal, so one
 * client's finished tasks cannot push another's results out.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import { storedSize } from './result-size.ts';
import {
  fenced,
  isTerminal,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStore,
} from './store.ts';

export interface MemoryTaskStoreOptions {
  /** Tasks kept at most; the oldest terminal ones go first, then new tasks are refused. @default 10000 */
  maxTasks?: number;
  /**
   * Results and errors kept in all, in JSON characters; past it the oldest finished tasks go
   * first (a poll for one then gets "not found"). @default 67108864 (64 MiB)
   */
  maxTaskBytes?: number;
  /**
   * Tasks one binding (a principal, or a legacy session without one) keeps at most; past it its
   * own oldest finished task goes, never another's. @default 1000
   */
  maxTasksPerPrincipal?: number;
  /**
   * Results and errors one binding keeps, in JSON characters; past it its own oldest finished
   * tasks go. @default 16777216 (16 MiB)
   */
  maxTaskBytesPerPrincipal?: number;
}

/** What one binding holds: its task ids in creation order, how many run, their results' size. */
interface Holding {
  readonly ids: Set<string>;
  active: number;
  bytes: number;
}

let sweep: (store: MemoryTaskStore) => void;

/**
 * Tasks in memory, the default: they end with the process (a later poll gets "not found", a
 * definite answer). One unref'd timer forgets expired tasks, only while tasks exist.
 */
export class MemoryTaskStore implements TaskStore {
  readonly exclusive = true;
  /** In creation order: the first terminal one is the oldest. */
  readonly #tasks = new Map<string, TaskRecord>();
  /**
   * Per binding, kept as tasks come, end and go: `countActive` runs on every task creation, and
   * a scan of up to maxTasks records there was 6% of a tasks benchmark's CPU.
   */
  readonly #holdings = new Map<string, Holding>();
  /** What each finished task's result or error weighs, and their sum. */
  readonly #sizes = new Map<string, number>();
  #bytes = 0;
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #maxPerBinding: number;
  readonly #maxBytesPerBinding: number;
  #host: TaskHost | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxTasks ?? DEFAULTS.tasks.maxTasks;
    this.#maxBytes = options.maxTaskBytes ?? DEFAULTS.tasks.maxTaskBytes;
    this.#maxPerBinding = options.maxTasksPerPrincipal ?? DEFAULTS.tasks.maxTasksPerPrincipal;
    this.#maxBytesPerBinding =
      options.maxTaskBytesPerPrincipal ?? DEFAULTS.tasks.maxTaskBytesPerPrincipal;
  }

  /** Results and errors held, in JSON characters. */
  get bytes(): number {
    return this.#bytes;
  }

  bind(host: TaskHost): void {
    this.#host = host;
  }

  create(record: TaskRecord, maxActive?: number): void {
    const holding = this.#holdings.get(record.binding);
    if (maxActive !== undefined && (holding?.active ?? 0) >= maxActive)
      throw new TaskLimitError(`Too many unfinished tasks (limit ${maxActive})`);
    // The binding's own oldest finished task makes room, never another binding's.
    if (holding && holding.ids.size >= this.#maxPerBinding && !this.#evictOwn(holding))
      throw new TaskLimitError(`Too many tasks (limit ${this.#maxPerBinding})`);
    if (this.#tasks.size >= this.#max && !this.#evictOldest())
      throw new TaskLimitError(`Too many tasks (limit ${this.#max})`);
    this.#tasks.set(record.id, { ...record });
    const held = holding ?? { ids: new Set<string>(), active: 0, bytes: 0 };
    if (!holding) this.#holdings.set(record.binding, held);
    held.ids.add(record.id);
    if (!isTerminal(record.status)) held.active++;
    this.#sweeper ??= unrefTimer(setInterval(sweep, 1000, this));
  }

  get(id: string): TaskRecord | undefined {
    const record = this.#tasks.get(id);
    if (record && record.expiresAt <= Date.now()) {
      this.#expire(record);
      return undefined;
    }
    return record && { ...record };
  }

  update(id: string, patch: Partial<TaskRecord>, fence?: number): TaskRecord | undefined {
    const record = this.#tasks.get(id);
    if (!record) return undefined;
    if (!isTerminal(record.status) && fenced(record, fence)) {
      Object.assign(record, patch, { updatedAt: Date.now() });
      if (isTerminal(record.status)) {
        const holding = this.#holdings.get(record.binding);
        if (holding) holding.active--;
        this.#weigh(record, holding);
      }
    }
    return { ...record };
  }

  list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ): { records: TaskRecord[]; nextCursor?: string } {
    const ids = [...(this.#holdings.get(binding)?.ids ?? [])].reverse();
    const start = cursor === undefined ? 0 : Number(cursor);
    const records: TaskRecord[] = [];
    for (const id of ids.slice(start, start + limit)) {
      const record = this.#tasks.get(id);
      if (record) records.push({ ...record });
    }
    return start + limit < ids.length
      ? { records, nextCursor: String(start + limit) }
      : { records };
  }

  countActive(binding: string): number {
    return this.#holdings.get(binding)?.active ?? 0;
  }

  /** Counts a finished task's result or error; the oldest finished go while over a budget. */
  #weigh(record: TaskRecord, holding: Holding | undefined): void {
    const size = storedSize(record);
    if (size === 0) return;
    this.#sizes.set(record.id, size);
    this.#bytes += size;
    if (holding) {
      holding.bytes += size;
      while (holding.bytes > this.#maxBytesPerBinding && this.#evictOwn(holding)) {}
    }
    while (this.#bytes > this.#maxBytes && this.#evictOldest()) {}
  }

  /** Forgets a task and its place in the indexes. */
  #remove(record: TaskRecord): void {
    this.#tasks.delete(record.id);
    const holding = this.#holdings.get(record.binding);
    const size = this.#sizes.get(record.id);
    if (size !== undefined) {
      this.#sizes.delete(record.id);
      this.#bytes -= size;
      if (holding) holding.bytes -= size;
    }
    if (!holding) return;
    holding.ids.delete(record.id);
    if (!isTerminal(record.status)) holding.active--;
    if (holding.ids.size === 0) this.#holdings.delete(record.binding);
  }

  static {
    sweep = (store) => store.#sweep(Date.now());
  }

  #sweep(now: number): void {
    // Deleting from a Map while iterating it is safe: no copy of up to maxTasks records.
    for (const record of this.#tasks.values()) if (record.expiresAt <= now) this.#expire(record);
    if (this.#tasks.size === 0 && this.#sweeper !== undefined) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  #expire(record: TaskRecord): void {
    this.#remove(record);
    this.#host?.expired(record.id);
  }

  /** The oldest finished task of the whole store goes; false when every task runs. */
  #evictOldest(): boolean {
    for (const record of this.#tasks.values()) {
      if (isTerminal(record.status)) {
        this.#remove(record);
        return true;
      }
    }
    return false;
  }

  /** The binding's own oldest finished task goes; false when all of its tasks run. */
  #evictOwn(holding: Holding): boolean {
    for (const id of holding.ids) {
      const record = this.#tasks.get(id);
      if (record && isTerminal(record.status)) {
        this.#remove(record);
        return true;
      }
    }
    return false;
  }
}
