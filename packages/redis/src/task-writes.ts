/**
 * The writes of a `RedisTaskStore`: compare-and-set from the version known here, merged again
 * onto what another writer left whenever it lost, and the terminal writes of tasks running here
 * that Redis could not take, kept until it is back.
 *
 * @module
 */
import { StoreUnavailableError } from '@edge-mcp/core/sessions';
import { fenced, isTerminal, type TaskRecord } from '@edge-mcp/core/tasks';
import { encodeMessage } from './bus-messages.ts';
import { type RedisReply, RedisUnavailableError } from './connection.ts';
import type { RedisContext } from './context.ts';
import { SESSION_FIELDS, TASK_FIELDS } from './keys.ts';
import { taskScripts } from './scripts/tasks.ts';
import type { TaskBooks } from './task-books.ts';

/** Compare-and-set attempts of one `update` before it gives up (each lost one re-merges). */
const MAX_ATTEMPTS = 32;
/** After the second lost attempt in a row, a random pause up to this long (ms): fairness. */
const MAX_BACKOFF_MS = 50;

/** The compare-and-set's reply; sharded, a write is followed by the instances to tell. */
type Outcome = [0] | [1 | 2, number, string] | [3, number, ...string[]];

export class TaskWriter {
  readonly runner: string;
  /** Terminal writes of tasks running here that Redis did not take (first one per task). */
  readonly unwritten = new Map<
    string,
    { patch: Partial<TaskRecord>; fence?: number | undefined }
  >();
  readonly #context: RedisContext;
  readonly #books: TaskBooks;
  readonly #channelPrefix: string;
  readonly #instancePrefix: string;
  #flushing: Promise<void> | undefined;

  constructor(context: RedisContext, books: TaskBooks) {
    this.#context = context;
    this.#books = books;
    this.runner = context.instance.tag;
    this.#channelPrefix = context.keys.channel('');
    this.#instancePrefix = context.keys.instance('');
  }

  /** The bus message that tells of a change of task `id` (sent by the scripts). */
  message(id: string, status: string): string {
    return encodeMessage(this.runner, { k: 'task', t: id, st: status });
  }

  /**
   * Sharded: tells the instances a script named that task `id` changed (their channels are other
   * slots than the task). A watcher that no longer listens and no longer lives is dropped from
   * the task, as the script does on one primary.
   */
  tell(tags: readonly string[], id: string, status: string): void {
    if (tags.length === 0) return;
    const { connection, keys, options } = this.#context;
    const message = this.message(id, status);
    for (const tag of tags)
      connection
        .command(['SPUBLISH', keys.channel(tag), message])
        .then(async (receivers) => {
          if (receivers !== 0 || (await this.#context.instance.alive(tag))) return;
          await connection.command(['HDEL', keys.task(id), `${TASK_FIELDS.watcher}${tag}`]);
        })
        .catch((error: Error) => options.onError(error, 'tasks'));
  }

  /** Sharded: tells the standalone home of session `sessionId` (another slot) of a change. */
  tellHome(sessionId: string, id: string, status: string): void {
    const { connection, keys, options } = this.#context;
    connection
      .command(['HGET', keys.session(sessionId), SESSION_FIELDS.home])
      .then((home) => {
        if (typeof home === 'string' && home !== this.runner) this.tell([home], id, status);
      })
      .catch((error: Error) => options.onError(error, 'tasks'));
  }

  /** Redis unreachable is `StoreUnavailableError` (503 with `Retry-After`); the rest as it is. */
  fail(error: unknown): never {
    if (error instanceof StoreUnavailableError) throw error;
    if (error instanceof RedisUnavailableError)
      throw new StoreUnavailableError(error.message, this.#context.options.retryAfterSeconds, {
        cause: error,
      });
    throw error;
  }

  /**
   * Compare-and-set from the version known here (read first when none is), merged again onto
   * what another writer left whenever it lost. With `fence`, refused (the current record is
   * answered) once the task's fencing token is another. `queue`: a terminal write of a task
   * running here that Redis cannot take now is kept for later, and its outcome answered as if
   * written.
   */
  async write(
    id: string,
    patch: Partial<TaskRecord>,
    queue: boolean,
    fence?: number,
  ): Promise<TaskRecord | undefined> {
    const { keys, connection } = this.#context;
    let known = this.#books.known.get(id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (!known) {
        let reply: RedisReply;
        try {
          reply = await connection.command([
            'HMGET',
            keys.task(id),
            TASK_FIELDS.record,
            TASK_FIELDS.version,
          ]);
        } catch (error) {
          this.fail(error);
        }
        const [json, version] = reply as [string | null, string | null];
        if (json === null || version === null) {
          this.#books.gone(id);
          return undefined;
        }
        known = { version: Number(version), json };
      }
      const current = JSON.parse(known.json) as TaskRecord;
      // A terminal task never changes again: what is known of it is what it is.
      if (isTerminal(current.status)) {
        this.#books.ended(id);
        return current;
      }
      // Another runner holds it now: the version compare makes this check atomic with the write.
      if (!fenced(current, fence)) return current;
      const next: TaskRecord = { ...current, ...patch, updatedAt: Date.now() };
      const json = JSON.stringify(next);
      const terminal = isTerminal(next.status);
      // Sharded, a session of another partition is told apart, after the write.
      const session = keys.sameSlot(id, next.sessionId) ? next.sessionId : undefined;
      let outcome: Outcome;
      try {
        outcome = (await connection.durable(
          taskScripts(keys).cas,
          [
            keys.task(id),
            keys.taskActive(next.binding),
            session === undefined ? keys.task(id) : keys.session(session),
            keys.taskPrefixes(keys.taskPartOf(next.binding)).held,
          ],
          [
            known.version,
            json,
            next.status,
            terminal ? 1 : 0,
            this.runner,
            this.#channelPrefix,
            this.#instancePrefix,
            this.message(id, next.status),
            id,
            session === undefined ? 0 : 1,
            next.runner,
          ],
        )) as Outcome;
      } catch (error) {
        if (queue && terminal && this.#books.mine.has(id) && unreachable(error)) {
          // Redis is away as the task ends here: written once it is back, never left `working`.
          if (!this.unwritten.has(id)) this.unwritten.set(id, { patch, fence });
          this.#books.ended(id);
          return JSON.parse(json) as TaskRecord;
        }
        this.fail(error);
      }
      switch (outcome[0]) {
        case 0:
          this.#books.gone(id);
          return undefined;
        case 3:
          this.#books.remember(id, { version: outcome[1], json });
          if (terminal) this.#books.ended(id);
          if (keys.sharded) {
            this.tell(outcome.slice(2) as string[], id, next.status);
            if (next.sessionId !== undefined && session === undefined)
              this.tellHome(next.sessionId, id, next.status);
          }
          return JSON.parse(json) as TaskRecord;
        default:
          // Terminal already (1), or another writer was first (2): retry on what it left, at
          // once the first time; then after a random pause, so that busy writers take turns.
          known = { version: outcome[1], json: outcome[2] };
          this.#books.remember(id, known);
          if (outcome[0] === 2 && attempt > 0)
            await pause(Math.random() * Math.min(2 ** attempt, MAX_BACKOFF_MS));
      }
    }
    throw new Error(`Task ${id}: ${MAX_ATTEMPTS} writes in a row lost to other writers`);
  }

  /** Writes the queued terminal writes (Redis is back); stops at the first it still cannot. */
  flush(): void {
    this.#flushing ??= (async () => {
      try {
        for (const [id, { patch, fence }] of [...this.unwritten]) {
          try {
            await this.write(id, patch, false, fence);
          } catch (error) {
            if (unreachable(error)) return;
            this.#context.options.onError(error as Error, 'tasks');
          }
          this.unwritten.delete(id);
        }
      } finally {
        this.#flushing = undefined;
      }
    })();
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function unreachable(error: unknown): boolean {
  return error instanceof RedisUnavailableError || error instanceof StoreUnavailableError;
}
