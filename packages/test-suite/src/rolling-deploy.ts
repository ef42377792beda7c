/**
 * The clients of the rolling-deploy test (issue 24, item 4), which keep working while the
 * instances of a `Deployment` are replaced one by one: legacy sessions that each follow their GET
 * stream (resuming with Last-Event-ID whenever it ends) and call `tally` one call at a time (a
 * running sum in the session: a call that ran twice shows in it), a steady `touch` that sends one
 * list-changed event to every session's stream, listen streams that listen again whenever they
 * end, and tasks followed with tasks/get. `pnpm test` runs a short version
 * (test/rolling-deploy.test.ts); `pnpm stress` a long one.
 */

import {
  LEGACY,
  legacy,
  legacyGet,
  modern,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';

/** What one client session saw. */
export interface SessionRecord {
  readonly id: string;
  /** Event ids of the list-changed events its GET stream delivered, in arrival order. */
  readonly events: string[];
  /** Ids of every event its GET stream delivered (task notifications too), in arrival order. */
  readonly ids: string[];
  /** Every list-changed notification its GET stream delivered: which list, and when it arrived. */
  readonly changes: Array<{ list: string; at: number }>;
  /** Sums `tally` answered, in order. */
  readonly sums: number[];
  /** Calls answered with a JSON-RPC error or an HTTP error (the proxy's 502/503), by kind. */
  readonly failures: string[];
  attempts: number;
  /** Times the GET stream was opened (1 + its resumptions). */
  connects: number;
  /** When its GET stream's first answer arrived: a change raised before may precede the stream. */
  openedAt: number | undefined;
}

/** A `subscriptions/listen` client: list changes it saw, and how often it listened. */
export interface ListenRecord {
  changes: number;
  connects: number;
}

/** A task started as the deploy goes on, and how it ended (`working` until it did). */
export interface TaskRecord {
  readonly id: string;
  status: string;
  /** The result's text, or the task's error message. */
  outcome: string | undefined;
}

const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** Clients that work through `url` until `stop()`; `touches` counts touch calls by outcome. */
export class Workload {
  readonly sessions: SessionRecord[] = [];
  readonly touches = { ok: 0, failed: 0 };
  /** When each answered touch was sent (`performance.now()`), in order. */
  readonly touchedAt: number[] = [];
  readonly listens: ListenRecord[] = [];
  readonly tasks: TaskRecord[] = [];
  taskStartsLost = 0;
  #stopped = false;
  #closed = false;
  readonly #abort = new AbortController();
  readonly #streams: Promise<void>[] = [];
  readonly #workers: Promise<void>[] = [];
  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  async start(sessions: number): Promise<void> {
    for (let i = 0; i < sessions; i++) {
      const id = await this.#open();
      const record: SessionRecord = {
        id,
        events: [],
        ids: [],
        changes: [],
        sums: [],
        failures: [],
        attempts: 0,
        connects: 0,
        openedAt: undefined,
      };
      this.sessions.push(record);
      this.#streams.push(this.#follow(record));
      this.#workers.push(this.#calls(record));
    }
    this.#workers.push(this.#touching());
  }

  /** `count` listen streams (2026-07-28), each listening again whenever its stream ends. */
  listen(count: number): void {
    for (let i = 0; i < count; i++) {
      const record: ListenRecord = { changes: 0, connects: 0 };
      this.listens.push(record);
      this.#streams.push(this.#listening(record));
    }
  }

  /**
   * `count` tasks of `task_sleep` for `ms` each, followed with tasks/get until they end. A start
   * refused (503 while draining) or whose connection the proxy closed is counted in
   * `taskStartsLost` (a cut one may have started a task the client never hears of).
   */
  async startTasks(count: number, ms: number): Promise<void> {
    const start = () =>
      this.#modern('tools/call', { name: 'task_sleep', arguments: { ms } }).catch(
        (error: unknown) => {
          if (!(error instanceof TypeError)) throw error;
          return undefined;
        },
      );
    for (let i = 0; i < count; i++) {
      let answer = await start();
      // Refused for now (503: its storage is failing over, or the instance drains): tried again
      // after its Retry-After, as a client does.
      if (answer?.status === 503) {
        await pause(1000);
        answer = await start();
      }
      const id = answer?.message.result?.taskId;
      if (answer === undefined || (answer.status !== 200 && typeof id !== 'string')) {
        this.taskStartsLost++;
        continue;
      }
      if (typeof id !== 'string') throw new Error(`no task: ${JSON.stringify(answer.message)}`);
      const record: TaskRecord = { id, status: 'working', outcome: undefined };
      this.tasks.push(record);
      this.#streams.push(this.#following(record));
    }
  }

  #modern(method: string, params: Record<string, unknown>) {
    return fetch(`${this.#url}/mcp`, modern(method, params, TASKS)).then(readAnswer);
  }

  async #listening(record: ListenRecord): Promise<void> {
    while (!this.#closed) {
      const response = await fetch(`${this.#url}/mcp`, {
        ...modern('subscriptions/listen', { notifications: { toolsListChanged: true } }),
        signal: this.#abort.signal,
      }).catch(() => undefined);
      if (response?.status !== 200) {
        await response?.body?.cancel();
        await pause(100);
        continue;
      }
      record.connects++;
      try {
        for await (const message of new SseReader(response))
          if (message.method === 'notifications/tools/list_changed') record.changes++;
      } catch {
        // Cut: listen again.
      }
    }
  }

  async #following(record: TaskRecord): Promise<void> {
    while (!this.#closed && record.status === 'working') {
      await pause(250);
      const answer = await this.#modern('tasks/get', { taskId: record.id }).catch(() => undefined);
      const task = answer?.message.result;
      if (!task || task.status === 'working') continue;
      record.status = task.status;
      record.outcome =
        task.result?.content?.[0]?.text ??
        task.error?.message ??
        task.statusMessage ??
        JSON.stringify(task);
    }
  }

  /**
   * A new session; a connection the proxy closed under the client is tried again, as a client
   * would (an initialize that never arrived opened nothing; one that did is left to expire).
   */
  async #open(): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await openSession(`${this.#url}/mcp`, LEGACY);
      } catch (error) {
        if (attempt === 3 || !(error instanceof TypeError)) throw error;
      }
    }
  }

  /** Stops the calls and touches; the streams go on until `close()`. */
  async quiet(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#workers);
  }

  /** One touch more (after `quiet()`), counted like the others. */
  touch(): Promise<void> {
    return this.#touch();
  }

  async #touching(): Promise<void> {
    while (!this.#stopped) {
      await this.#touch();
      await pause(200);
    }
  }

  async #touch(): Promise<void> {
    const session = this.sessions[0] as SessionRecord;
    const at = performance.now();
    const answer = await this.#call(session.id, 'touch', {}).catch(() => undefined);
    if (answer?.status === 200 && answer.message.result) {
      this.touches.ok++;
      this.touchedAt.push(at);
    } else this.touches.failed++;
  }

  async #calls(record: SessionRecord): Promise<void> {
    while (!this.#stopped) {
      record.attempts++;
      const answer: { status: number; message: Record<string, any> } = await this.#call(
        record.id,
        'tally',
        { add: 1 },
      ).catch((error: Error) => ({ status: 0, message: { error: { message: failure(error) } } }));
      const sum = answer.message?.result?.structuredContent?.sum;
      if (typeof sum === 'number') record.sums.push(sum);
      else
        record.failures.push(
          `${answer.status} ${answer.message?.error?.message ?? 'no JSON-RPC answer'}`,
        );
      await pause(50);
    }
  }

  #call(session: string, name: string, args: Record<string, unknown>) {
    return fetch(
      `${this.#url}/mcp`,
      legacy('tools/call', { name, arguments: args }, session, { version: LEGACY }),
    ).then(readAnswer);
  }

  /** Follows the session's GET stream, resuming after the last event whenever it ends. */
  async #follow(record: SessionRecord): Promise<void> {
    while (!this.#closed) {
      const last = record.ids.at(-1);
      const response = await fetch(
        `${this.#url}/mcp`,
        legacyGet(record.id, last, { version: LEGACY, signal: this.#abort.signal }),
      ).catch(() => undefined);
      if (response?.status !== 200) {
        await response?.body?.cancel();
        // A client's reconnect backoff (the stream's `retry` field is 1 s; shorter here).
        await pause(100);
        continue;
      }
      record.connects++;
      record.openedAt ??= performance.now();
      const reader = new SseReader(response);
      try {
        for await (const message of reader) {
          if (message._eventId === undefined) continue;
          record.ids.push(message._eventId);
          const list = /^notifications\/(\w+)\/list_changed$/.exec(message.method ?? '')?.[1];
          if (list !== undefined) record.changes.push({ list, at: performance.now() });
          if (list === 'tools') record.events.push(message._eventId);
        }
      } catch {
        // Cut (a crash, the proxy): resume.
      }
    }
  }

  /** Ends the streams and waits for every loop. */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#closed = true;
    this.#abort.abort();
    await Promise.allSettled([...this.#workers, ...this.#streams]);
  }
}

/** A failed fetch, with what undici says lay under it (a reset, a closed socket). */
function failure(error: Error): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message} (${cause.code ?? cause.message})` : error.message;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
