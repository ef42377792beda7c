/**
 * A complete third-party `SessionStore`, the one `docs/stores.md` walks through: session records in
 * a `Map` standing in for a database (any key-value store has the same five calls), with the idle
 * timeout on timers. `docs/test/stores.test.ts` runs the store contract on it.
 */
import type { AbortReasonType } from '@edge-mcp/core';
import {
  type SessionInit,
  type SessionLoad,
  type SessionRecord,
  type SessionStore,
  type SessionStoreHost,
  StoreUnavailableError,
} from '@edge-mcp/core/sessions';

/** What the "database" holds per session: the record as JSON text, and its version. */
export interface StoredRow {
  json: string;
  version: number;
}

export class MapSessionStore implements SessionStore {
  readonly #rows: Map<string, StoredRow>;
  /** One timer per idle session: when it fires, the manager decides whether it expired. */
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #host: SessionStoreHost | undefined;
  #closed = false;

  /** `rows` is the storage: give a second store the same map to play a restarted process. */
  constructor(rows: Map<string, StoredRow> = new Map()) {
    this.#rows = rows;
  }

  get rows(): Map<string, StoredRow> {
    return this.#rows;
  }

  bind(host: SessionStoreHost): void {
    this.#host = host;
  }

  create(_init: SessionInit): string {
    this.#usable();
    // The manager writes the first record right after; until then the id names nothing.
    return crypto.randomUUID();
  }

  load(id: string, knownVersion: number | undefined): SessionLoad {
    this.#usable();
    const row = this.#rows.get(id);
    if (!row) return 'gone';
    if (row.version === knownVersion) return 'unchanged';
    return { record: JSON.parse(row.json) as SessionRecord, version: row.version };
  }

  write(record: SessionRecord): void {
    this.#usable();
    const version = (this.#rows.get(record.id)?.version ?? 0) + 1;
    this.#rows.set(record.id, { json: JSON.stringify(record), version });
  }

  delete(id: string, _reason: AbortReasonType): boolean {
    this.#clearTimer(id);
    return this.#rows.delete(id);
  }

  touch(id: string, _lastActive: number, expiresAt: number): void {
    this.#schedule(id, expiresAt);
  }

  close(): void {
    this.#closed = true;
    for (const id of [...this.#timers.keys()]) this.#clearTimer(id);
  }

  #schedule(id: string, at: number): void {
    this.#clearTimer(id);
    if (this.#closed) return;
    const timer = setTimeout(() => this.#due(id), Math.max(0, at - Date.now()));
    this.#timers.set(id, timer);
  }

  async #due(id: string): Promise<void> {
    this.#timers.delete(id);
    // Used since the timer was set: the manager answers when to look again.
    const again = await this.#host?.expired(id);
    if (again !== undefined) this.#schedule(id, again);
  }

  #clearTimer(id: string): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  /** A real database may be down: the request is answered 503 with Retry-After. */
  #usable(): void {
    if (this.#closed) throw new StoreUnavailableError('The session store is closed');
  }
}
