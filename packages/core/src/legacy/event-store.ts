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

interface SessionLog {
  /** Next sequence number per stream (the priming event takes 0). */
  next: Map<string, number>;
  streams: string[];
  seqs: number[];
  messages: string[];
}

/** A bounded in-memory EventStore, the default for Node, Deno and Bun. */
export class MemoryEventStore implements EventStore {
  readonly #logs = new Map<string, SessionLog>();
  readonly #max: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#max = options.maxEventsPerSession ?? 1000;
  }

  append(sessionId: string, streamId: string, message: string): string {
    let log = this.#logs.get(sessionId);
    if (!log) {
      log = { next: new Map(), streams: [], seqs: [], messages: [] };
      this.#logs.set(sessionId, log);
    }
    const seq = log.next.get(streamId) ?? 1;
    log.next.set(streamId, seq + 1);
    log.streams.push(streamId);
    log.seqs.push(seq);
    log.messages.push(message);
    if (log.messages.length > this.#max) {
      log.streams.shift();
      log.seqs.shift();
      log.messages.shift();
    }
    return `${streamId}-${seq}`;
  }

  replay(sessionId: string, lastEventId: string): ReplayedEvents | undefined {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const events: ReplayedEvents['events'] = [];
    const log = this.#logs.get(sessionId);
    if (log) {
      for (let i = 0; i < log.messages.length; i++) {
        const seq = log.seqs[i] as number;
        if (log.streams[i] === parsed.streamId && seq > parsed.seq) {
          events.push({ id: `${parsed.streamId}-${seq}`, message: log.messages[i] as string });
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
    return this.#logs.get(sessionId)?.messages.length ?? 0;
  }
}
