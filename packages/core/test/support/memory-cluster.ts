/**
 * A test double of a cluster (issue 15): what Redis will hold (session records,
 * events, tasks, which instances live) in shared in-process maps, and an in-process bus between
 * instances. Each `instance()` is what one server process would own: the core's `SessionManager`
 * over a shared `SessionStore` with a `SessionCluster`, an `EventStore`, a `ClusterBus` and a `TaskStore`, to spread
 * into one handler's options. Messages between instances are delivered in order, a microtask
 * later, and never to a stopped instance; records are JSON copies, so instances share nothing
 * but what the seams carry.
 */

import type { ClientResponse, ClusterBus, ClusterEvent, ClusterHost } from '../../src/cluster.ts';
import { StoreUnavailableError } from '../../src/errors.ts';
import type { AbortReasonType } from '../../src/lifecycle/abort-reason.ts';
import type { RequestId } from '../../src/protocol/jsonrpc.ts';
import { SessionManager } from '../../src/sessions.ts';
import { isTerminal, type TaskHost, type TaskRecord } from '../../src/tasks.ts';
import { ClusterLinks, ClusterRecords } from './memory-cluster-sessions.ts';
import { ClusterTaskStore, SharedEventStore } from './memory-cluster-stores.ts';
import type { ClusterWorld, StoredSession } from './memory-cluster-world.ts';

export interface ClusterInstance {
  readonly tag: string;
  /** The core's session manager over the shared records. */
  readonly sessions: SessionManager;
  readonly records: ClusterRecords;
  readonly links: ClusterLinks;
  readonly eventStore: SharedEventStore;
  readonly cluster: ClusterBus;
  readonly taskStore: ClusterTaskStore;
  /** `sessions`, `eventStore`, `cluster` and `tasks.store` for `createMcpHandler`. */
  readonly options: {
    sessions: SessionManager;
    eventStore: SharedEventStore;
    cluster: ClusterBus;
    tasks: { store: ClusterTaskStore };
  };
}

/** What one instance holds for the world to reach it. */
interface Member {
  alive: boolean;
  /** Hears nothing, though its liveness lasts (a killed process whose lease has not lapsed). */
  deaf?: boolean;
  readonly sessions: SessionManager;
  readonly records: ClusterRecords;
  readonly taskStore: ClusterTaskStore;
  bus: ClusterHost | undefined;
  taskHost: TaskHost | undefined;
}

export class MemoryCluster implements ClusterWorld {
  /** Session records by id (what Redis's session hashes hold). */
  readonly records = new Map<string, StoredSession>();
  /** Why each ended session ended. */
  readonly tombstones = new Map<string, AbortReasonType>();
  readonly events: SharedEventStore = new SharedEventStore(this);
  /** Task records by id. */
  readonly tasks = new Map<string, TaskRecord>();
  /** While set, every storage operation throws `StoreUnavailableError` (Redis down). */
  down = false;
  /** Messages sent between instances so far, by kind (for tests that count them). */
  readonly sent = new Map<string, number>();
  readonly #members = new Map<string, Member>();
  #next = 0;

  /** A new instance (a server process) of the cluster. */
  instance(tag = `i${this.#next++}x`): ClusterInstance {
    const records = new ClusterRecords(this, tag);
    const links = new ClusterLinks(this, tag);
    const sessions = new SessionManager({ store: records, cluster: links });
    const taskStore = new ClusterTaskStore(this, tag);
    const member: Member = {
      alive: true,
      sessions,
      records,
      taskStore,
      bus: undefined,
      taskHost: undefined,
    };
    this.#members.set(tag, member);
    const cluster: ClusterBus = {
      bind: (host) => {
        member.bus = host;
      },
      publish: (event: ClusterEvent) => {
        this.broadcast(tag, event.kind, (other) => other.bus?.deliver(event));
      },
    };
    return {
      tag,
      sessions,
      records,
      links,
      eventStore: this.events,
      cluster,
      taskStore,
      options: { sessions, eventStore: this.events, cluster, tasks: { store: taskStore } },
    };
  }

  /** Throws what a store throws while the storage cannot be reached. */
  check(): void {
    if (this.down) throw new StoreUnavailableError('the test cluster is down', 2);
  }

  alive(tag: string): boolean {
    return this.#members.get(tag)?.alive === true;
  }

  /** The instance stopped (its liveness gone): it gets no message any more. */
  stopped(tag: string): void {
    const member = this.#members.get(tag);
    if (member) member.alive = false;
  }

  /** The instance hears no message any more, but still counts as alive (see `Member.deaf`). */
  deafened(tag: string): void {
    const member = this.#members.get(tag);
    if (member) member.deaf = true;
  }

  /** A stopped instance is back (a frozen process that woke up): it gets messages again. */
  revived(tag: string): void {
    const member = this.#members.get(tag);
    if (member) member.alive = true;
  }

  /** The session manager of a live instance. */
  sessionsOf(tag: string): SessionManager | undefined {
    const member = this.#members.get(tag);
    return member?.alive ? member.sessions : undefined;
  }

  bindTasks(tag: string, host: TaskHost): void {
    const member = this.#members.get(tag);
    if (member) member.taskHost = host;
  }

  /** Delivers to one live instance, a microtask later, in order. */
  send(to: string, kind: string, deliver: (member: Member) => void): void {
    this.sent.set(kind, (this.sent.get(kind) ?? 0) + 1);
    queueMicrotask(() => {
      const member = this.#members.get(to);
      if (member?.alive && !member.deaf) deliver(member);
    });
  }

  /** Delivers to every live instance but `from`. */
  broadcast(from: string, kind: string, deliver: (member: Member) => void): void {
    for (const tag of this.#members.keys()) if (tag !== from) this.send(tag, kind, deliver);
  }

  /** A client response travels to the instance its request id names (`s<tag>.<n>`). */
  respond(from: string, sessionId: string, id: RequestId, response: ClientResponse): void {
    if (typeof id !== 'string' || !id.startsWith('s') || !id.includes('.')) return;
    const holder = id.slice(1, id.lastIndexOf('.'));
    if (holder === from) return;
    this.send(holder, 'resp', (member) => member.sessions.peek(sessionId)?.answer(id, response));
  }

  /** A task changed on `from`: every other instance's engine is told. */
  taskChanged(from: string, id: string): void {
    this.broadcast(from, 'task', (member) => member.taskHost?.changed?.(id));
  }

  /**
   * A sweep of leases, as a shared store runs it: every live instance hears of each unfinished
   * task whose runner is gone or that is queued.
   */
  sweepTasks(): void {
    for (const record of this.tasks.values()) {
      if (isTerminal(record.status) || this.alive(record.runner)) continue;
      for (const member of this.#members.values())
        if (member.alive) member.taskHost?.orphaned?.(record.id);
    }
  }

  taskExpired(id: string): void {
    for (const member of this.#members.values()) if (member.alive) member.taskHost?.expired(id);
  }
}
