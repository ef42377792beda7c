/**
 * This instance's replicas (design §4.4.2): live `Session` objects rebuilt from records, kept in
 * least-recently-used order up to `maxReplicas`. A replica is a cache entry, not a session: one
 * that holds nothing live is dropped silently when room is needed, and rebuilt by the next
 * request. One that holds something is pinned: a request in flight or a connection (relays
 * included), the standalone stream homed here, writes not yet in Redis, `onClose` hooks.
 */
import type { Session } from '@edge-mcp/core/cluster';
import type { FieldOps } from './session-record.ts';

/** One replica and what the manager keeps beside it. */
export interface Replica {
  readonly session: Session;
  /** The record version it reflects; -1 when unknown (the next touch reloads the record). */
  version: number;
  /** Field operations not written yet: this tick's, or queued after a failed write. */
  unsent: FieldOps | undefined;
  /** Settles the requests waiting for `unsent` (undefined when none waits). */
  settle: (() => void) | undefined;
  /** What those requests wait for. */
  written: Promise<void> | undefined;
  /** Writes sent and not answered yet. */
  writing: number;
  /** A write failed: `unsent` waits for Redis (flushed by the heartbeat and on reconnection). */
  queued: boolean;
  /** `onClose` hooks were registered here: they would be lost with the replica. */
  hooks: boolean;
}

export class Replicas {
  readonly #map = new Map<string, Replica>();
  /** Every replica made here, also once dropped from the cache (its session may still run). */
  readonly #made = new WeakMap<Session, Replica>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  /** The replica of `id`, without counting it as used. */
  get(id: string): Replica | undefined {
    return this.#map.get(id);
  }

  /** The replica of `id`, now the most recently used. */
  use(id: string): Replica | undefined {
    const replica = this.#map.get(id);
    if (replica && this.#map.size > 1) {
      this.#map.delete(id);
      this.#map.set(id, replica);
    }
    return replica;
  }

  /** Keeps `session` as the replica of its id (version `version`); may drop unpinned ones. */
  add(session: Session, version: number): Replica {
    const replica: Replica = {
      session,
      version,
      unsent: undefined,
      settle: undefined,
      written: undefined,
      writing: 0,
      queued: false,
      hooks: false,
    };
    // A hook registered here runs here when the session ends anywhere: the replica must stay.
    const onClose = session.onClose;
    session.onClose = (fn) => {
      replica.hooks = true;
      onClose.call(session, fn);
    };
    this.#made.set(session, replica);
    this.#keep(replica);
    return replica;
  }

  /**
   * The replica made for `session`, even if the cache dropped it meanwhile (a request that got it
   * just before): put back unless another replica of its id took its place.
   */
  of(session: Session): Replica | undefined {
    const replica = this.#made.get(session);
    if (replica && !this.#map.has(session.id) && !session.aborted) this.#keep(replica);
    return replica;
  }

  delete(id: string): Replica | undefined {
    const replica = this.#map.get(id);
    this.#map.delete(id);
    return replica;
  }

  values(): IterableIterator<Replica> {
    return this.#map.values();
  }

  #keep(replica: Replica): void {
    this.#map.set(replica.session.id, replica);
    if (this.#map.size > this.#max) this.#shrink();
  }

  /** Drops least recently used replicas that hold nothing live, until within the bound. */
  #shrink(): void {
    for (const [id, replica] of this.#map) {
      if (this.#map.size <= this.#max) return;
      if (!pinned(replica)) this.#map.delete(id);
    }
  }
}

/** Whether dropping the replica would lose something live. */
export function pinned(replica: Replica): boolean {
  const session = replica.session;
  return (
    session.active > 0 ||
    session.standalone !== undefined ||
    replica.unsent !== undefined ||
    replica.writing > 0 ||
    replica.hooks
  );
}
