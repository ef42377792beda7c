/**
 * The memory cluster's storage: events (what a Redis Streams store keeps, with the request a
 * stream answers and its final mark) and tasks shared by every instance.
 */
import type { RequestId } from '../../src/protocol/jsonrpc.ts';
import {
  type AppendInfo,
  type EventStore,
  parseEventId,
  type ReplayedEvents,
} from '../../src/sessions.ts';
import {
  fenced,
  isTerminal,
  type TaskHost,
  type TaskRecord,
  type TaskStore,
} from '../../src/tasks.ts';
import type { ClusterWorld } from './memory-cluster-world.ts';

interface Logged {
  readonly stream: string;
  readonly seq: number;
  readonly message: string;
  readonly final: boolean;
}

interface Log {
  next: number;
  readonly events: Logged[];
  /** Request id of each stream that has no final message yet. */
  readonly requests: Map<string, RequestId>;
}

/** One event store for every instance (every method is keyed by session): unbounded. */
export class SharedEventStore implements EventStore {
  readonly #world: ClusterWorld;
  readonly #logs = new Map<string, Log>();

  constructor(world: ClusterWorld) {
    this.#world = world;
  }

  /** Stored at once, answered a microtask later (as a remote store's reply comes after the write). */
  append(sessionId: string, streamId: string, message: string, info?: AppendInfo): Promise<string> {
    try {
      this.#world.check();
    } catch (error) {
      return Promise.reject(error);
    }
    let log = this.#logs.get(sessionId);
    if (!log) {
      log = { next: 1, events: [], requests: new Map() };
      this.#logs.set(sessionId, log);
    }
    const seq = log.next++;
    log.events.push({ stream: streamId, seq, message, final: info?.final === true });
    if (info?.requestId !== undefined) log.requests.set(streamId, info.requestId);
    if (info?.final) log.requests.delete(streamId);
    return Promise.resolve(`${streamId}-${seq}`);
  }

  async replay(sessionId: string, lastEventId: string): Promise<ReplayedEvents | undefined> {
    this.#world.check();
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const log = this.#logs.get(sessionId);
    const events: ReplayedEvents['events'] = [];
    let finished = false;
    for (const event of log?.events ?? []) {
      if (event.stream !== parsed.streamId || event.seq <= parsed.seq) continue;
      events.push({ id: `${event.stream}-${event.seq}`, message: event.message });
      if (event.final) {
        finished = true;
        break;
      }
    }
    const requestId = finished ? undefined : log?.requests.get(parsed.streamId);
    return { streamId: parsed.streamId, events, requestId, finished };
  }

  dropSession(sessionId: string): void {
    this.#logs.delete(sessionId);
  }

  /** Messages stored for a session (tests read what was stored once). */
  messages(sessionId: string): string[] {
    return (this.#logs.get(sessionId)?.events ?? []).map((event) => event.message);
  }
}

/** One instance's view of the shared tasks: its runner is the instance, changes are broadcast. */
export class ClusterTaskStore implements TaskStore {
  readonly exclusive = false;
  readonly runner: string;
  readonly #world: ClusterWorld;

  constructor(world: ClusterWorld, tag: string) {
    this.#world = world;
    this.runner = tag;
  }

  bind(host: TaskHost): void {
    this.#world.bindTasks(this.runner, host);
  }

  alive(runner: string): boolean {
    return this.#world.alive(runner);
  }

  create(record: TaskRecord): void {
    this.#world.check();
    this.#world.tasks.set(record.id, structuredClone(record));
  }

  get(id: string): TaskRecord | undefined {
    this.#world.check();
    const record = this.#world.tasks.get(id);
    if (record && record.expiresAt <= Date.now()) {
      this.#world.tasks.delete(id);
      this.#world.taskExpired(id);
      return undefined;
    }
    return record && structuredClone(record);
  }

  update(id: string, patch: Partial<TaskRecord>, fence?: number): TaskRecord | undefined {
    this.#world.check();
    const record = this.#world.tasks.get(id);
    if (!record) return undefined;
    if (!isTerminal(record.status) && fenced(record, fence)) {
      Object.assign(record, structuredClone(patch), { updatedAt: Date.now() });
      this.#world.taskChanged(this.runner, id);
    }
    return structuredClone(record);
  }

  list(binding: string, cursor: string | undefined, limit: number) {
    const mine = [...this.#world.tasks.values()].filter((r) => r.binding === binding).reverse();
    const start = cursor === undefined ? 0 : Number(cursor);
    const records = mine.slice(start, start + limit).map((r) => structuredClone(r));
    return start + limit < mine.length
      ? { records, nextCursor: String(start + limit) }
      : { records };
  }

  countActive(binding: string): number {
    let count = 0;
    for (const record of this.#world.tasks.values())
      if (record.binding === binding && !isTerminal(record.status)) count++;
    return count;
  }
}
