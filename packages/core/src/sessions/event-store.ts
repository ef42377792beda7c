import { DEFAULTS } from '../defaults.ts';

/**
 * Storage of SSE events for resumable legacy streams.
 *
 * Event ids are `<streamId>-<seq>`: unique within a session, and the stream an id belongs to can be
 * read from the id itself, so a `Last-Event-ID` resume replays that stream and no other. Every
 * method is keyed by session id first: one session can never read another's events.
 */
export interface EventStore {
  /** Stores `message` (serialized JSON-RPC) sent on `streamId`; returns its event id. */
  append(sessionId: string, streamId: string, message: string): string | Promise<string>;
  /**
   * Events of the stream `lastEventId` belongs to, sent after it, in order. `undefined` when the
   * id is malformed. Events evicted by the store's bound are missing from the replay.
   */
  replay(
    sessionId: string,
    lastEventId: string,
  ): ReplayedEvents | undefined | Promise<ReplayedEvents | undefined>;
  /** Forgets everything of a session (it ended). */
  dropSession(sessionId: string): void | Promise<void>;
}

export interface ReplayedEvents {
  streamId: string;
  events: Array<{ id: string; message: string }>;
}

/** `<streamId>-<seq>` → its parts; `undefined` for anything else. */
export function parseEventId(id: string): { streamId: string; seq: number } | undefined {
  const dash = id.lastIndexOf('-');
  if (dash <= 0) return undefined;
  const seq = Number(id.slice(dash + 1));
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { streamId: id.slice(0, dash), seq };
}

export interface MemoryEventStoreOptions {
  /** Events kept per session; the oldest go first. @default 1000 */
  maxEventsPerSession?: number;
}

interface StoredEvent {
  stream: string;
  seq: number;
  message: string;
}

interface SessionLog {
  /**
   * Next sequence number, one counter for all the session's streams (ids stay increasing within
   * each stream, and nothing is kept per stream that could grow with the number of streams).
   */
  next: number;
  /** Events from `start` on are live; older slots are dropped in one go once they pile up. */
  events: StoredEvent[];
  start: number;
}

/** A bounded in-memory EventStore, the default for Node, Deno and Bun. */
export class MemoryEventStore implements EventStore {
  readonly #logs = new Map<string, SessionLog>();
  readonly #max: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#max = options.maxEventsPerSession ?? DEFAULTS.maxEventsPerSession;
  }

  append(sessionId: string, streamId: string, message: string): string {
    let log = this.#logs.get(sessionId);
    if (!log) {
      log = { next: 1, events: [], start: 0 };
      this.#logs.set(sessionId, log);
    }
    const seq = log.next++;
    log.events.push({ stream: streamId, seq, message });
    // The oldest goes first; the array is compacted only when as many dead slots as live events
    // have piled up, so an append stays O(1) however long the stream runs.
    if (log.events.length - log.start > this.#max) {
      log.start++;
      if (log.start >= this.#max) {
        log.events = log.events.slice(log.start);
        log.start = 0;
      }
    }
    return `${streamId}-${seq}`;
  }

  replay(sessionId: string, lastEventId: string): ReplayedEvents | undefined {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const events: ReplayedEvents['events'] = [];
    const log = this.#logs.get(sessionId);
    if (log) {
      for (let i = log.start; i < log.events.length; i++) {
        const event = log.events[i] as StoredEvent;
        if (event.stream === parsed.streamId && event.seq > parsed.seq) {
          events.push({ id: `${parsed.streamId}-${event.seq}`, message: event.message });
        }
      }
    }
    return { streamId: parsed.streamId, events };
  }

  dropSession(sessionId: string): void {
    this.#logs.delete(sessionId);
  }

  /** Events held for a session (for probes and tests). */
  size(sessionId: string): number {
    const log = this.#logs.get(sessionId);
    return log ? log.events.length - log.start : 0;
  }
}
