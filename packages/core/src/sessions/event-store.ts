import { DEFAULTS } from '../defaults.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';

/**
 * Storage of SSE events for resumable legacy streams.
 *
 * Event ids are `<streamId>-<seq>`: unique within a session, and the stream an id belongs to can be
 * read from the id itself, so a `Last-Event-ID` resume replays that stream and no other. Every
 * method is keyed by session id first: one session can never read another's events.
 */
export interface EventStore {
  /**
   * Stores `message` (serialized JSON-RPC) sent on `streamId`; returns its event id. `info` says
   * which request a stream answers (with its first event) and marks its final message; a store
   * shared by instances keeps both so a stream whose holder died can be ended (memory and Durable
   * Object stores ignore it).
   */
  append(
    sessionId: string,
    streamId: string,
    message: string,
    info?: AppendInfo,
  ): string | Promise<string>;
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

/** What the stream's holder says of an event besides its message. */
export interface AppendInfo {
  /** The request the stream answers (given with a request stream's first event). */
  requestId?: RequestId;
  /** The stream's last message (the answer): a replay stops at it. */
  final?: boolean;
}

export interface ReplayedEvents {
  streamId: string;
  events: Array<{ id: string; message: string }>;
  /** The request the stream answers, while its final message is not stored (stores that keep it). */
  requestId?: RequestId | undefined;
  /** The replay ends with the stream's final message (stores that keep `AppendInfo.final`). */
  finished?: boolean | undefined;
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
  /** Characters of messages kept per session; the oldest go first. @default 1 MiB */
  maxEventBytesPerSession?: number;
  /**
   * Characters of messages kept for all sessions together: beyond it, the session written to
   * least recently loses its oldest events first. @default 64 MiB
   */
  maxEventBytes?: number;
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
  /** Characters of the live events' messages. */
  bytes: number;
}

/**
 * A bounded in-memory EventStore, the default for Node, Deno and Bun: per session by count and
 * bytes, and in total by bytes (one client cannot make the server hold more than its share).
 */
export class MemoryEventStore implements EventStore {
  /** In order of the last append: the first is the session written to least recently. */
  readonly #logs = new Map<string, SessionLog>();
  readonly #maxEvents: number;
  readonly #maxSessionBytes: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerSession ?? DEFAULTS.maxEventsPerSession;
    this.#maxSessionBytes = options.maxEventBytesPerSession ?? DEFAULTS.maxEventBytesPerSession;
    this.#maxBytes = options.maxEventBytes ?? DEFAULTS.maxEventBytes;
  }

  append(sessionId: string, streamId: string, message: string): string {
    let log = this.#logs.get(sessionId);
    if (log) this.#logs.delete(sessionId);
    else log = { next: 1, events: [], start: 0, bytes: 0 };
    this.#logs.set(sessionId, log);
    const seq = log.next++;
    log.events.push({ stream: streamId, seq, message });
    log.bytes += message.length;
    this.#bytes += message.length;
    while (
      log.events.length - log.start > this.#maxEvents ||
      (log.bytes > this.#maxSessionBytes && log.events.length - log.start > 1)
    )
      this.#dropOldest(log);
    // Over the total: the least recently written sessions give way first (never this event).
    for (const other of this.#logs.values()) {
      if (this.#bytes <= this.#maxBytes || other === log) break;
      while (other.events.length > other.start && this.#bytes > this.#maxBytes)
        this.#dropOldest(other);
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
    const log = this.#logs.get(sessionId);
    if (!log) return;
    this.#bytes -= log.bytes;
    this.#logs.delete(sessionId);
  }

  /** What the store holds for a session: events and their characters. */
  usage(sessionId: string): { events: number; bytes: number } {
    const log = this.#logs.get(sessionId);
    return log
      ? { events: log.events.length - log.start, bytes: log.bytes }
      : { events: 0, bytes: 0 };
  }

  /** Characters held for all sessions together. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Drops a log's oldest event. The array is compacted only when as many dead slots as live
   * events have piled up, so an append stays O(1) however long the stream runs.
   */
  #dropOldest(log: SessionLog): void {
    const oldest = log.events[log.start] as StoredEvent;
    log.events[log.start] = undefined as unknown as StoredEvent;
    log.start++;
    log.bytes -= oldest.message.length;
    this.#bytes -= oldest.message.length;
    if (log.start >= log.events.length - log.start) {
      log.events = log.events.slice(log.start);
      log.start = 0;
    }
  }
}
