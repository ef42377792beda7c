import { DEFAULTS } from '@edge-mcp/core';
import { type EventStore, parseEventId, type ReplayedEvents } from '@edge-mcp/core/sessions';
import type { SqlStorage } from './workers-types.ts';

export interface DurableObjectEventStoreOptions {
  /** Events kept; the oldest go first. @default 1000 */
  maxEvents?: number;
  /** Bytes of messages kept; the oldest go first. @default 1048576 (1 MiB) */
  maxBytes?: number;
}

/**
 * The EventStore of one session, in its Durable Object's SQLite storage, so a stream can be
 * resumed after the object was evicted or restarted.
 *
 * Storage layout: one table `mcp_events(n INTEGER PRIMARY KEY AUTOINCREMENT, stream, message)`.
 * Event ids are `<stream>-<n>`: `n` is never reused (AUTOINCREMENT), so ids stay unique and
 * ordered across restarts without a counter per stream.
 * Bound: at most `maxEvents` events and `maxBytes` of messages; beyond either, the oldest rows are
 * deleted at once, so storage never grows with a long stream.
 * Only the object's own session is stored here; the session id argument is checked, not used as a key.
 */
export class DurableObjectEventStore implements EventStore {
  readonly #sql: SqlStorage;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #count = -1;
  #bytes = 0;

  constructor(sql: SqlStorage, options: DurableObjectEventStoreOptions = {}) {
    this.#sql = sql;
    this.#maxEvents = options.maxEvents ?? DEFAULTS.maxEventsPerSession;
    this.#maxBytes = options.maxBytes ?? DEFAULTS.maxEventBytesPerSession;
    sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_events (n INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, message TEXT NOT NULL)',
    );
  }

  append(_sessionId: string, streamId: string, message: string): string {
    this.#load();
    const row = this.#sql
      .exec<{ n: number }>(
        'INSERT INTO mcp_events (stream, message) VALUES (?, ?) RETURNING n',
        streamId,
        message,
      )
      .one();
    this.#count++;
    this.#bytes += message.length;
    if (this.#count > this.#maxEvents || this.#bytes > this.#maxBytes) this.#evict();
    return `${streamId}-${row.n}`;
  }

  replay(_sessionId: string, lastEventId: string): ReplayedEvents | undefined {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const rows = this.#sql
      .exec<{ n: number; message: string }>(
        'SELECT n, message FROM mcp_events WHERE stream = ? AND n > ? ORDER BY n',
        parsed.streamId,
        parsed.seq,
      )
      .toArray();
    return {
      streamId: parsed.streamId,
      events: rows.map((row) => ({ id: `${parsed.streamId}-${row.n}`, message: row.message })),
    };
  }

  dropSession(): void {
    this.#sql.exec('DELETE FROM mcp_events');
    this.#count = 0;
    this.#bytes = 0;
  }

  /** Rows and bytes held now (for the bound's tests and for operators). */
  usage(): { events: number; bytes: number } {
    this.#load();
    return { events: this.#count, bytes: this.#bytes };
  }

  #load(): void {
    if (this.#count >= 0) return;
    const row = this.#sql
      .exec<{ c: number; b: number | null }>(
        'SELECT COUNT(*) AS c, SUM(LENGTH(message)) AS b FROM mcp_events',
      )
      .one();
    this.#count = row.c;
    this.#bytes = row.b ?? 0;
  }

  #evict(): void {
    // Drop a tenth of the bound at a time, so a steady stream does not delete on every append.
    const batch = Math.max(1, Math.floor(this.#maxEvents / 10));
    while (this.#count > this.#maxEvents || this.#bytes > this.#maxBytes) {
      const gone = this.#sql
        .exec<{ size: number }>(
          'DELETE FROM mcp_events WHERE n IN (SELECT n FROM mcp_events ORDER BY n LIMIT ?) RETURNING LENGTH(message) AS size',
          batch,
        )
        .toArray();
      if (gone.length === 0) break;
      this.#count -= gone.length;
      for (const row of gone) this.#bytes -= row.size;
    }
  }
}
