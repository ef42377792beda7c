/**
 * What the memory cluster's instances reach of the cluster (memory-cluster.ts): its records and
 * its bus. The session manager and the stores are written against this, not the class, so the
 * three files do not import each other.
 */

import type { ClientResponse, Session } from '../../src/cluster.ts';
import type { AbortReasonType } from '../../src/lifecycle/abort-reason.ts';
import type { RequestId } from '../../src/protocol/jsonrpc.ts';
import type { SessionRecord } from '../../src/sessions.ts';
import type { TaskHost, TaskRecord } from '../../src/tasks.ts';

/** A session record as the cluster stores it. */
export interface StoredSession {
  record: SessionRecord;
  /** Counts the writes: a replica whose version differs reloads the record. */
  version: number;
  /** The instance whose `session.standalone` carries the GET stream. */
  home: string | undefined;
}

/** What a message between instances reaches on the receiving one. */
export interface WorldMember {
  /** The instance's session manager (its live copies). */
  readonly sessions: { peek(id: string): Session | undefined };
  /** The instance's session store: told of sessions that ended elsewhere. */
  readonly records: { endedElsewhere(id: string, reason: AbortReasonType): void };
}

export interface ClusterWorld {
  readonly records: Map<string, StoredSession>;
  readonly tombstones: Map<string, AbortReasonType>;
  readonly tasks: Map<string, TaskRecord>;
  /** Throws what a store throws while the storage cannot be reached. */
  check(): void;
  alive(tag: string): boolean;
  stopped(tag: string): void;
  sessionsOf(tag: string): WorldMember['sessions'] | undefined;
  bindTasks(tag: string, host: TaskHost): void;
  send(to: string, kind: string, deliver: (member: WorldMember) => void): void;
  broadcast(from: string, kind: string, deliver: (member: WorldMember) => void): void;
  respond(from: string, sessionId: string, id: RequestId, response: ClientResponse): void;
  taskChanged(from: string, id: string): void;
  taskExpired(id: string): void;
}
