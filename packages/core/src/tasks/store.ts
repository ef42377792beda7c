import { DEFAULTS } from '../defaults.ts';
import { unrefTimer } from '../lifecycle/timers.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { InputRequest } from '../server/types.ts';
import { storedSize } from './result-size.ts';

/** Where a task is: `working` ⇄ `input_required`, then one of the three terminal states. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether a status is final (a terminal task never changes again). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * One task as a store keeps it: plain JSON, the same for both protocol eras (each era projects it
 * onto its own wire shape).
 */
export interface TaskRecord {
  readonly id: string;
  /** Who may see it: `p:<principal>` when authenticated, `s:<session id>` for a legacy session, else ''. */
  readonly binding: string;
  status: TaskStatus;
  statusMessage?: string | undefined;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  updatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** When the store forgets it (`createdAt + ttlMs`). */
  readonly expiresAt: number;
  /** The tool it runs. */
  readonly tool: string;
  /** The legacy session that created it, for its status notifications. */
  readonly sessionId?: string | undefined;
  /** Input requests outstanding, by wire key (status `input_required`). */
  inputRequests?: Record<string, InputRequest> | undefined;
  /** Every input key ever issued (a key is never reused). */
  issuedKeys: string[];
  /** The tool's result (status `completed`). */
  result?: JsonObject | undefined;
  /** The protocol error (status `failed`). */
  error?: { code: number; message: string; data?: unknown } | undefined;
  /** The engine instance running it: another instance's non-terminal task lost its runner. */
  readonly runner: string;
  /**
   * Answers to input requests the runner has not taken yet (a `tasks/update` that landed on
   * another instance than the runner's), by wire key.
   */
  answers?: Record<string, JsonObject> | undefined;
}

/** What the engine lends its store when it binds it. */
export interface TaskHost {
  /** A task reached its TTL and was forgotten: a handler still running for it must stop. */
  expired(id: string): void;
  /**
   * A task was changed by another instance (status, input requests, answers, a cancel): the
   * engine reads it again if it runs or watches it here. Stores shared by instances call it.
   */
  changed?(id: string): void;
}

/**
 * Where tasks live (like `SessionManager` and `EventStore`). `create` resolves only once the task
 * is durable and visible to `get` from anywhere: a client is told about a task only then. Every
 * method may answer with a promise (a remote store); the memory store answers at once.
 */
export interface TaskStore {
  /**
   * One engine serves the store at a time (memory, a Durable Object): a non-terminal task whose
   * runner is another engine lost it to a restart, and is answered `failed` rather than left
   * `working` for ever. A store shared by live instances (Redis) says which runners are alive
   * instead (`runner`, `alive`).
   */
  readonly exclusive: boolean;
  /**
   * The runner id the engine records in its tasks (a shared store keeps it alive, e.g. with a
   * heartbeat per instance). @default a fresh id per engine
   */
  readonly runner?: string;
  /**
   * Whether a runner is alive (stores that are not exclusive): an unfinished task of a dead
   * runner is answered `failed`. Without it, another runner is taken to be alive.
   */
  alive?(runner: string): boolean | Promise<boolean>;
  bind(host: TaskHost): void;
  /**
   * A fresh task id, when the store decides them (a Durable Object store embeds its object's id
   * so a Worker can route `tasks/*` by it). At least 128 bits of randomness: without auth the id
   * is the only secret. @default newTaskId()
   */
  newId?(): string;
  /**
   * Stores a new task. With `maxActive`, throws `TaskLimitError` instead when the record's
   * binding has that many unfinished tasks already: atomically, where instances share the store
   * (two instances must not both create the last one a principal may have).
   */
  create(record: TaskRecord, maxActive?: number): void | Promise<void>;
  /** The task, unless unknown or expired. */
  get(id: string): TaskRecord | undefined | Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` unless the task is terminal (a terminal task never changes: the first
   * terminal write wins, a cancel stays a cancel); the record after it, or `undefined` when the
   * task is unknown. Applied or not, the current record comes back.
   */
  update(
    id: string,
    patch: Partial<TaskRecord>,
  ): TaskRecord | undefined | Promise<TaskRecord | undefined>;
  /** A binding's tasks, newest first, one page at a time. */
  list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ):
    | { records: TaskRecord[]; nextCursor?: string | undefined }
    | Promise<{ records: TaskRecord[]; nextCursor?: string | undefined }>;
  /** Non-terminal tasks of a binding. */
  countActive(binding: string): number | Promise<number>;
}

export interface MemoryTaskStoreOptions {
  /** Tasks kept at most; the oldest terminal ones go first, then new tasks are refused. @default 10000 */
  maxTasks?: number;
  /**
   * Results and errors kept in all, in JSON characters; past it the oldest finished tasks go
   * first (a poll for one then gets "not found"). @default 67108864 (64 MiB)
   */
  maxTaskBytes?: number;
}

/** The store is full of tasks still running: no new one can be created. */
export class TaskLimitError extends Error {
  override readonly name = 'TaskLimitError';
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
   * Unfinished tasks per binding, kept as tasks come, end and go: `countActive` runs on every
   * task creation, and a scan of up to maxTasks records there was 6% of a tasks benchmark's CPU.
   */
  readonly #active = new Map<string, number>();
  /** Each binding's task ids, in creation order (for `list`). */
  readonly #byBinding = new Map<string, Set<string>>();
  readonly #max: number;
  /** What each finished task's result or error weighs, and their sum. */
  readonly #sizes = new Map<string, number>();
  #bytes = 0;
  readonly #maxBytes: number;
  #host: TaskHost | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#max = options.maxTasks ?? DEFAULTS.tasks.maxTasks;
    this.#maxBytes = options.maxTaskBytes ?? DEFAULTS.tasks.maxTaskBytes;
  }

  /** Results and errors held, in JSON characters. */
  get bytes(): number {
    return this.#bytes;
  }

  bind(host: TaskHost): void {
    this.#host = host;
  }

  create(record: TaskRecord, maxActive?: number): void {
    if (maxActive !== undefined && this.countActive(record.binding) >= maxActive)
      throw new TaskLimitError(`Too many unfinished tasks (limit ${maxActive})`);
    if (this.#tasks.size >= this.#max && !this.#evictOne())
      throw new TaskLimitError(`Too many tasks (limit ${this.#max})`);
    this.#tasks.set(record.id, { ...record });
    const ids = this.#byBinding.get(record.binding);
    if (ids === undefined) this.#byBinding.set(record.binding, new Set([record.id]));
    else ids.add(record.id);
    if (!isTerminal(record.status)) this.#countActive(record.binding, 1);
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

  update(id: string, patch: Partial<TaskRecord>): TaskRecord | undefined {
    const record = this.#tasks.get(id);
    if (!record) return undefined;
    if (!isTerminal(record.status)) {
      Object.assign(record, patch, { updatedAt: Date.now() });
      if (isTerminal(record.status)) {
        this.#countActive(record.binding, -1);
        this.#weigh(record);
      }
    }
    return { ...record };
  }

  list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ): { records: TaskRecord[]; nextCursor?: string } {
    const ids = [...(this.#byBinding.get(binding) ?? [])].reverse();
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
    return this.#active.get(binding) ?? 0;
  }

  #countActive(binding: string, delta: 1 | -1): void {
    const count = (this.#active.get(binding) ?? 0) + delta;
    if (count > 0) this.#active.set(binding, count);
    else this.#active.delete(binding);
  }

  /** Counts a finished task's result or error; the oldest finished tasks go while over budget. */
  #weigh(record: TaskRecord): void {
    const size = storedSize(record);
    if (size === 0) return;
    this.#sizes.set(record.id, size);
    this.#bytes += size;
    while (this.#bytes > this.#maxBytes && this.#evictOne()) {}
  }

  /** Forgets a task and its place in the indexes. */
  #remove(record: TaskRecord): void {
    this.#tasks.delete(record.id);
    const size = this.#sizes.get(record.id);
    if (size !== undefined) {
      this.#sizes.delete(record.id);
      this.#bytes -= size;
    }
    const ids = this.#byBinding.get(record.binding);
    ids?.delete(record.id);
    if (ids?.size === 0) this.#byBinding.delete(record.binding);
    if (!isTerminal(record.status)) this.#countActive(record.binding, -1);
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

  #evictOne(): boolean {
    for (const record of this.#tasks.values()) {
      if (isTerminal(record.status)) {
        this.#remove(record);
        return true;
      }
    }
    return false;
  }
}

/** A fresh task id: 128 random bits, base64url (unguessable: without auth it is the only secret). */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
