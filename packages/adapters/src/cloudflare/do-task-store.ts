import { StoreUnavailableError } from '@edge-mcp/core/sessions';
import {
  fenced,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStore,
} from '@edge-mcp/core/tasks';
import { type AlarmUser, ObjectAlarm } from './object-alarm.ts';
import { scopedId } from './session-id.ts';
import { admitTask, taskEnded } from './session-registry.ts';
import type { DurableObjectNamespace, DurableObjectState, SyncKvStorage } from './workers-types.ts';

export interface DurableObjectTaskStoreOptions {
  /** The object's alarm, shared with its session manager. @default an alarm of the store's own */
  alarm?: ObjectAlarm;
  /**
   * While a task runs in this object, its alarm fires at least this often: each alarm is an
   * event, so the runtime keeps the object (and the task's handler) in memory between polls.
   * @default 30000
   */
  heartbeatMs?: number;
  /**
   * The `SessionRegistry` namespace: a new task then takes a place among its binding's running
   * tasks across every object (`tasks.maxActivePerPrincipal`), counted in the registry; without
   * it each object counts only its own. @default undefined
   */
  registry?: DurableObjectNamespace;
}

/** Records are stored under `mcp-task:<task id>`. */
const PREFIX = 'mcp-task:';

function active(record: TaskRecord): boolean {
  return record.status === 'working' || record.status === 'input_required';
}

/** The record as stored and answered: plain JSON (a patch's `undefined` fields are left out). */
function plain(record: TaskRecord): TaskRecord {
  return JSON.parse(JSON.stringify(record)) as TaskRecord;
}

/**
 * The core's `TaskStore` in one Durable Object: its tasks' records in the object's synchronous
 * KV storage (SQLite-backed), so a task's result, or its `failed` end, outlives an eviction, a
 * restart or a deploy.
 *
 * - Ids are `<object id>.<128-bit token>`, like session ids: the Worker routes `tasks/*` to the
 *   object by the id in `Mcp-Name`, and the token makes the id unguessable.
 * - One live instance per object, so the store is `exclusive`: a record left unfinished by an
 *   earlier instance lost its handler. The engine runs it again when its tool may run again (or
 *   it waits for input), else answers it `failed` (reason `restart`): when it is next read, or
 *   at the next alarm, whichever comes first.
 * - Writes are synchronous: the object's output gate holds the CreateTaskResult until the task
 *   is durable, so a `tasks/get` sent after it always finds the task.
 * - The object's alarm (shared with the session manager: one `alarm()` asks both) forgets tasks
 *   at their TTL and, while a task runs here, beats every `heartbeatMs` to keep the object in
 *   memory after the request that created the task has been answered.
 * - A handful of tasks per object is the expected size (one per object from the session Worker,
 *   a session's own): `list` and `countActive` read them all.
 */
export class DurableObjectTaskStore implements TaskStore, AlarmUser {
  readonly exclusive = true;
  readonly #state: DurableObjectState;
  readonly #kv: SyncKvStorage;
  readonly #alarm: ObjectAlarm;
  readonly #heartbeatMs: number;
  /** Tasks this instance created and that have not ended: their handlers run here. */
  readonly #live = new Set<string>();
  #host: TaskHost | undefined;
  /** Records stored, once counted; -1 before (and after the storage was deleted). */
  #count = -1;
  readonly #registry: DurableObjectNamespace | undefined;

  constructor(state: DurableObjectState, options: DurableObjectTaskStoreOptions = {}) {
    this.#state = state;
    this.#kv = state.storage.kv;
    this.#heartbeatMs = options.heartbeatMs ?? 30_000;
    this.#alarm = options.alarm ?? new ObjectAlarm(state);
    this.#alarm.add(this);
    this.#registry = options.registry;
  }

  bind(host: TaskHost): void {
    this.#host = host;
  }

  newId(): string {
    return scopedId(this.#state.id.toString());
  }

  create(record: TaskRecord, maxActive?: number): void | Promise<void> {
    const registry = this.#registry;
    if (registry === undefined || maxActive === undefined || !active(record))
      return this.#store(record);
    const ask = {
      id: record.id,
      binding: record.binding,
      max: maxActive,
      expiresAt: record.expiresAt,
    };
    return admitTask(registry, ask).then(
      (admitted) => {
        if (!admitted) throw new TaskLimitError(`Too many unfinished tasks (limit ${maxActive})`);
        this.#store(record);
      },
      (error: unknown) => {
        throw new StoreUnavailableError(`The session registry cannot be reached: ${error}`, 1);
      },
    );
  }

  #store(record: TaskRecord): void {
    const count = this.#stored();
    this.#kv.put(PREFIX + record.id, plain(record));
    this.#count = count + 1;
    if (active(record)) this.#runs(record);
    else this.#alarm.request(record.expiresAt);
  }

  /** `record` runs here from now on: the alarm beats while it does (and forgets it at its TTL). */
  #runs(record: TaskRecord): void {
    this.#live.add(record.id);
    this.#alarm.request(Math.min(record.expiresAt, Date.now() + this.#heartbeatMs));
  }

  get(id: string): TaskRecord | undefined {
    const record = this.#kv.get<TaskRecord>(PREFIX + id);
    if (record && record.expiresAt <= Date.now()) {
      this.#expire([id]);
      this.#released();
      return undefined;
    }
    return record;
  }

  update(id: string, patch: Partial<TaskRecord>, fence?: number): TaskRecord | undefined {
    const record = this.#kv.get<TaskRecord>(PREFIX + id);
    if (!record || !active(record) || !fenced(record, fence)) return record;
    const next = plain({ ...record, ...patch, updatedAt: Date.now() } as TaskRecord);
    this.#kv.put(PREFIX + id, next);
    if (!active(next)) {
      this.#live.delete(id);
      this.#ended(id);
    } else if (patch.runner !== undefined && !this.#live.has(id)) {
      // Claimed by this instance after a restart lost its run: it runs here again, so the
      // heartbeat must keep the object in memory for it as for a task created here.
      this.#runs(next);
    }
    return next;
  }

  list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ): { records: TaskRecord[]; nextCursor?: string } {
    const now = Date.now();
    const mine = this.#records()
      .filter((r) => r.binding === binding && r.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    const start = cursor === undefined ? 0 : Number(cursor);
    const offset = Number.isSafeInteger(start) && start > 0 ? start : 0;
    const records = mine.slice(offset, offset + limit);
    return offset + limit < mine.length
      ? { records, nextCursor: String(offset + limit) }
      : { records };
  }

  countActive(binding: string): number {
    const now = Date.now();
    return this.#records().filter((r) => r.binding === binding && active(r) && r.expiresAt > now)
      .length;
  }

  /** Forgets the tasks of `binding` that have ended (a legacy session's, once it is gone). */
  forget(binding: string): void {
    for (const record of this.#records())
      if (record.binding === binding && !active(record)) this.#remove(record.id);
    this.#released();
  }

  /** Tasks stored, and how many of them are still running (for operators and tests). */
  usage(): { tasks: number; active: number } {
    const records = this.#records();
    return { tasks: records.length, active: records.filter(active).length };
  }

  /** The object's alarm, when the store has it to itself (an object of your own). */
  alarm(): Promise<void> {
    return this.#alarm.fire();
  }

  /**
   * AlarmUser: forget what reached its TTL; beat again while a task runs here. A task left
   * unfinished by an earlier instance of the object (a restart, a deploy, an eviction while it
   * ran) is handed to the engine, which runs it again or answers it `failed`: the alarm that
   * instance set outlives it, so a lost run is taken up within one heartbeat even when nobody
   * reads the task.
   */
  due(now: number): number | undefined {
    let next: number | undefined;
    const expired: string[] = [];
    const orphans: string[] = [];
    for (const record of this.#records()) {
      if (record.expiresAt <= now) expired.push(record.id);
      else {
        if (active(record) && !this.#live.has(record.id)) orphans.push(record.id);
        if (next === undefined || record.expiresAt < next) next = record.expiresAt;
      }
    }
    this.#expire(expired);
    for (const id of orphans) this.#host?.orphaned?.(id);
    if (this.#live.size > 0) next = Math.min(next ?? Infinity, now + this.#heartbeatMs);
    return next;
  }

  /** AlarmUser: whether task records are stored. */
  get holding(): boolean {
    return this.#stored() > 0;
  }

  /** AlarmUser: the object's storage was deleted. */
  cleared(): void {
    this.#count = -1;
  }

  #records(): TaskRecord[] {
    if (this.#count === 0) return [];
    const records = [...this.#kv.list<TaskRecord>({ prefix: PREFIX })].map(([, record]) => record);
    this.#count = records.length;
    return records;
  }

  #stored(): number {
    if (this.#count < 0) this.#records();
    return Math.max(this.#count, 0);
  }

  #remove(id: string): void {
    if (this.#kv.delete(PREFIX + id) && this.#count > 0) this.#count--;
    this.#live.delete(id);
  }

  /** A running task ended: its place among its binding's is free again. */
  #ended(id: string): void {
    if (this.#registry) void taskEnded(this.#registry, id);
  }

  /** Forgets expired tasks; a handler still running for one is stopped (`task-expired`). */
  #expire(ids: string[]): void {
    for (const id of ids) {
      if (this.#live.has(id)) this.#ended(id);
      this.#remove(id);
      this.#host?.expired(id);
    }
  }

  /** Once no record is left, the object's storage may go (the alarm decides: a session may hold it). */
  #released(): void {
    if (this.#stored() === 0) this.#alarm.released();
  }
}
