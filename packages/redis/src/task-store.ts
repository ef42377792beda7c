/**
 * `RedisTaskStore`: the core's `TaskStore` shared by every instance of a server.
 * A task runs on the instance that created it (its `runner`, the instance tag, kept alive by the
 * instance's liveness key); any instance answers `tasks/get`, `tasks/update`, `tasks/cancel` and
 * `tasks/list` from Redis, and a change written elsewhere reaches the runner (and the instances
 * that watch the task) on the bus, as the core's `TaskHost.changed(id)`.
 */
import { invalidParams } from '@edge-mcp/core';
import {
  isTerminal,
  newTaskId,
  type TaskHost,
  TaskLimitError,
  type TaskRecord,
  type TaskStore,
} from '@edge-mcp/core/tasks';
import type { RedisReply } from './connection.ts';
import type { RedisContext } from './context.ts';
import type { RedisOp } from './redis-types.ts';
import { type TaskScripts, taskScripts } from './scripts/tasks.ts';
import { TaskBooks } from './task-books.ts';
import { decodeCursor, encodeCursor } from './task-cursor.ts';
import { LeaseSweep } from './task-leases.ts';
import { TaskWriter } from './task-writes.ts';

/** How long a runner's liveness read with its task answers `alive()` without asking again. */
const ALIVE_FRESH_MS = 1000;
/** Expired tasks taken off the indexes per heartbeat and instance. */
const SWEEP_BATCH = 100;

/**
 * Tasks in Redis, for `createMcpHandler(server, { tasks: { store } })` on every instance.
 *
 * - Records are JSON in the hash `<ns>:{t:<id>}` with `PEXPIREAT` at their `expiresAt`; `create`
 *   resolves once Redis has the task (a `tasks/get` on any instance finds it).
 * - `update` is compare-and-set in one script: it never changes a terminal task (the first
 *   terminal write wins, a cancel stays a cancel) and tells the runner, the instances watching
 *   the task and a legacy session's standalone home about the change, in the same script.
 *   An instance watches a task once it read it unfinished (a `tasks/get`, `tasks/result`, a
 *   listen stream following it); nobody else hears of it.
 * - `exclusive` is false: `runner` is this instance's tag and `alive(runner)` its liveness key,
 *   so the task of an instance that died is answered `failed` (`restart`) by the engine.
 * - The TTL: each runner ends the handlers of its own tasks at `expiresAt` (`TaskHost.expired`);
 *   the heartbeat takes expired ids off the indexes.
 * - Redis unreachable: `StoreUnavailableError` (503 with `Retry-After`). A task that ends here
 *   while Redis is away is not left `working`: its terminal write is queued and written when
 *   Redis is back.
 *
 * One store per handler (`bind` once). `close()` after the handler's.
 */
export class RedisTaskStore implements TaskStore {
  readonly exclusive = false;
  /** This instance's tag: the runner of the tasks its engine creates. */
  readonly runner: string;
  readonly #context: RedisContext;
  readonly #scripts: TaskScripts;
  readonly #channelPrefix: string;
  readonly #instancePrefix: string;
  /** What this instance knows and times of tasks (versions, its own, the watched ones). */
  readonly #books: TaskBooks;
  readonly #writer: TaskWriter;
  readonly #leases: LeaseSweep;
  /** The last write of each task being written from here. */
  readonly #writing = new Map<string, Promise<TaskRecord | undefined>>();
  readonly #detach: Array<() => void> = [];
  #host: TaskHost | undefined;
  #closed = false;

  constructor(context: RedisContext) {
    this.#context = context;
    const { keys, bus, instance, connection } = context;
    this.runner = instance.tag;
    this.#books = new TaskBooks((id) => this.#host?.expired(id));
    this.#writer = new TaskWriter(context, this.#books);
    this.#leases = new LeaseSweep(context, (id) => this.#host?.orphaned?.(id));
    this.#scripts = taskScripts(keys);
    this.#channelPrefix = keys.channel('');
    this.#instancePrefix = keys.instance('');
    this.#detach.push(
      bus.on('task', ({ t }) => {
        if (typeof t === 'string') this.#host?.changed?.(t);
      }),
      bus.on('queued', ({ t }) => {
        if (typeof t === 'string') this.#host?.orphaned?.(t);
      }),
      instance.onBeat(() => {
        if (this.#writer.unwritten.size > 0 && connection.available) this.#writer.flush();
        const parts = keys.taskParts();
        const ops: RedisOp[] = parts.map((part) => {
          const prefixes = keys.taskPrefixes(part);
          return {
            script: this.#scripts.sweep,
            keys: [prefixes.index, prefixes.held],
            args: [...prefixes.task, prefixes.list, prefixes.active, SWEEP_BATCH],
          };
        });
        for (const part of parts) ops.push(this.#leases.op(part, []));
        return { ops, done: (replies) => this.#leases.swept(parts, replies.slice(parts.length)) };
      }),
      connection.onAvailable(() => this.#reconcile()),
    );
  }

  bind(host: TaskHost): void {
    this.#host = host;
  }

  /** Sharded, a task id begins with its binding's partition (its keys' slot). */
  newId(binding: string): string {
    return this.#context.keys.taskId(binding, newTaskId());
  }

  async create(record: TaskRecord, maxActive?: number): Promise<void> {
    const { keys, connection } = this.#context;
    const json = JSON.stringify(record);
    const terminal = isTerminal(record.status);
    // Sharded, a session of another partition is told apart (`#tellHome`), not by the script.
    const session = keys.sameSlot(record.id, record.sessionId) ? record.sessionId : undefined;
    const prefixes = keys.taskPrefixes(keys.taskPartOf(record.binding));
    let created: RedisReply;
    try {
      created = await connection.durable(
        this.#scripts.create,
        [
          keys.task(record.id),
          keys.taskList(record.binding),
          keys.taskActive(record.binding),
          prefixes.index,
          session === undefined ? keys.task(record.id) : keys.session(session),
          prefixes.held,
        ],
        [
          json,
          record.status,
          record.runner,
          record.binding,
          record.createdAt,
          record.expiresAt,
          record.id,
          terminal ? 1 : 0,
          this.#channelPrefix,
          this.#writer.message(record.id, record.status),
          session === undefined ? 0 : 1,
          maxActive ?? '',
          this.#context.options.maxTasksPerPrincipal,
          ...prefixes.task,
        ],
      );
    } catch (error) {
      this.#writer.fail(error);
    }
    if (Array.isArray(created)) {
      // Sharded: the code first, then the instances to tell.
      const [code, ...told] = created;
      this.#writer.tell(told.map(String), record.id, record.status);
      created = code ?? null;
    }
    if (created === 1 && record.sessionId !== undefined && session === undefined)
      this.#writer.tellHome(record.sessionId, record.id, record.status);
    // Counted in the same script as the write: two instances cannot both take the last one.
    if (created === 0) throw new TaskLimitError(`Too many unfinished tasks (limit ${maxActive})`);
    if (created === 2)
      throw new TaskLimitError(
        `Too many tasks (limit ${this.#context.options.maxTasksPerPrincipal}), none finished`,
      );
    this.#books.remember(record.id, { version: 1, json });
    if (record.runner === this.runner && !terminal) this.#books.track(record.id, record.expiresAt);
    if (record.runner === '' && !terminal) this.#queued(record.id);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const watch = !this.#books.watching.has(id);
    let reply: RedisReply;
    try {
      reply = await this.#context.connection.script(
        this.#scripts.get,
        [this.#context.keys.task(id)],
        [this.runner, this.#instancePrefix, watch ? 1 : 0],
      );
    } catch (error) {
      this.#writer.fail(error);
    }
    if (!Array.isArray(reply)) {
      this.#books.gone(id);
      return undefined;
    }
    const [json, version, told] = reply as [string, number, number];
    this.#books.remember(id, { version, json });
    const record = JSON.parse(json) as TaskRecord;
    if (record.expiresAt <= Date.now()) {
      this.#books.gone(id);
      return undefined;
    }
    // Sharded, the runner's liveness is asked apart (-1: its key is another slot).
    const alive = told === -1 ? ((await this.alive(record.runner)) ? 1 : 0) : told;
    if (isTerminal(record.status)) this.#books.ended(id);
    else if (record.runner !== this.runner) {
      this.#books.sawRunner(record.runner, alive === 1);
      if (watch && alive === 1) this.#books.watch(id);
    }
    return record;
  }

  update(id: string, patch: Partial<TaskRecord>, fence?: number): Promise<TaskRecord | undefined> {
    // One write of a task at a time from this instance: they would only race each other for
    // its version (a lost compare-and-set costs a round trip).
    const previous = this.#writing.get(id);
    const run = () => this.#writer.write(id, patch, true, fence);
    const write = (previous ? previous.then(run, run) : run()).then((record) => {
      if (record) this.#held(record, patch);
      return record;
    });
    this.#writing.set(id, write);
    const done = () => {
      if (this.#writing.get(id) === write) this.#writing.delete(id);
    };
    write.then(done, done);
    return write;
  }

  async list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ records: TaskRecord[]; nextCursor?: string }> {
    let after: { createdAt: number; id: string } | undefined;
    if (cursor !== undefined) {
      after = decodeCursor(binding, cursor);
      if (!after) throw invalidParams('Invalid cursor');
    }
    const size = Math.max(1, Math.floor(limit));
    let reply: RedisReply;
    try {
      const { keys } = this.#context;
      reply = await this.#context.connection.script(
        this.#scripts.list,
        [keys.taskList(binding)],
        [
          ...keys.taskPrefixes(keys.taskPartOf(binding)).task,
          size,
          after?.createdAt ?? '',
          after?.id ?? '',
        ],
      );
    } catch (error) {
      this.#writer.fail(error);
    }
    const all = (reply as string[]).map((json) => JSON.parse(json) as TaskRecord);
    const page = all.slice(0, size);
    const now = Date.now();
    const records = page.filter((record) => record.expiresAt > now);
    const last = page[page.length - 1];
    return all.length > size && last
      ? { records, nextCursor: encodeCursor(binding, last) }
      : { records };
  }

  async countActive(binding: string): Promise<number> {
    const { keys, connection } = this.#context;
    try {
      const reply = await connection.script(
        this.#scripts.count,
        [keys.taskActive(binding)],
        [...keys.taskPrefixes(keys.taskPartOf(binding)).task, this.#instancePrefix],
      );
      if (!Array.isArray(reply)) return reply as number;
      // Sharded: the runners of the unfinished tasks; those alive count.
      const runners = reply.map(String);
      const alive = new Map<string, boolean>();
      for (const runner of new Set(runners)) alive.set(runner, await this.alive(runner));
      return runners.filter((runner) => alive.get(runner)).length;
    } catch (error) {
      this.#writer.fail(error);
    }
  }

  /**
   * Whether the instance tagged `runner` lives (its liveness key exists). A task just read here
   * brought the answer along; otherwise one `EXISTS`.
   */
  async alive(runner: string): Promise<boolean> {
    if (runner === this.runner) return true;
    const seen = this.#books.alive.get(runner);
    if (seen && Date.now() - seen.at < ALIVE_FRESH_MS) return seen.alive;
    try {
      return await this.#context.instance.alive(runner);
    } catch (error) {
      this.#writer.fail(error);
    }
  }

  /** After a write: a task claimed here is timed here; one let go is announced to runners. */
  #held(record: TaskRecord, patch: Partial<TaskRecord>): void {
    if (patch.runner === undefined || isTerminal(record.status)) return;
    if (record.runner === this.runner && patch.runner === this.runner)
      this.#books.track(record.id, record.expiresAt);
    else if (record.runner === '' && patch.runner === '') this.#queued(record.id);
  }

  /** Task `id` waits for a runner: every instance hears of it (one claims it). */
  #queued(id: string): void {
    this.#context.bus
      .broadcast({ k: 'queued', t: id })
      .catch((error: Error) => this.#context.options.onError(error, 'tasks'));
  }

  /**
   * Stops listening and timers (after the handler's `close()`; the connection is the cluster's).
   * Terminal writes still queued are dropped: the instance's liveness key lapsing answers those
   * tasks `failed` elsewhere.
   */
  close(): Promise<void> {
    this.#closed = true;
    for (const detach of this.#detach.splice(0)) detach();
    this.#books.clear();
    this.#writer.unwritten.clear();
    return Promise.resolve();
  }

  /** Tasks running here, tasks watched here, terminal writes waiting for Redis (for tests). */
  stats(): { running: number; watching: number; unwritten: number } {
    return {
      running: this.#books.mine.size,
      watching: this.#books.watching.size,
      unwritten: this.#writer.unwritten.size,
    };
  }

  /**
   * Redis is back: queued writes go out, and the engine reads again the tasks it runs or watches
   * (a change told while this instance's subscriber was away was lost). Reading registers the
   * watch again.
   */
  #reconcile(): void {
    if (this.#closed) return;
    if (this.#writer.unwritten.size > 0) this.#writer.flush();
    const ids = new Set([...this.#books.mine.keys(), ...this.#books.watching]);
    this.#books.watching.clear();
    for (const id of ids) this.#host?.changed?.(id);
  }
}
