/**
 * `RedisEventStore`: each session's replayable SSE events in one Redis stream,
 * bounded per session by count and by bytes, readable by every instance, so `Last-Event-ID`
 * resumes anywhere, also after the instance that wrote the events died. It keeps the request a
 * stream answers until the stream's final message, so a stream whose holder is gone can be
 * ended with an error (stored once).
 */
import {
  type AppendInfo,
  type EventStore,
  parseEventId,
  type ReplayedEvents,
} from '@edge-mcp/core/sessions';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import type { RedisReply } from './redis-types.ts';
import { APPEND, REPLAY } from './scripts/events.ts';

export interface RedisEventStoreOptions {
  /** Events kept per session; the oldest go first (a tenth of the bound at once). */
  maxEventsPerSession: number;
  /** UTF-8 bytes of messages kept per session; the oldest go first. */
  maxEventBytesPerSession: number;
}

/** An append for a session that ended (its events are not kept). */
export class SessionGoneError extends Error {
  override readonly name = 'SessionGoneError';
}

export class RedisEventStore implements EventStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #maxEvents: number;
  readonly #maxBytes: number;

  constructor(connection: RedisConnection, keys: RedisKeys, options: RedisEventStoreOptions) {
    this.#connection = connection;
    this.#keys = keys;
    this.#maxEvents = options.maxEventsPerSession;
    this.#maxBytes = options.maxEventBytesPerSession;
  }

  /** One round trip; rejects while Redis is away (the event then goes out without an id). */
  async append(
    sessionId: string,
    streamId: string,
    message: string,
    info?: AppendInfo,
  ): Promise<string> {
    const seq = await this.#connection.durable(
      APPEND,
      [this.#keys.session(sessionId), this.#keys.events(sessionId)],
      [
        streamId,
        message,
        this.#maxEvents,
        this.#maxBytes,
        info?.final ? '1' : '',
        info?.requestId === undefined ? '' : JSON.stringify(info.requestId),
      ],
    );
    if (typeof seq !== 'number') throw new SessionGoneError(`session ${sessionId} has ended`);
    return `${streamId}-${seq}`;
  }

  async replay(sessionId: string, lastEventId: string): Promise<ReplayedEvents | undefined> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const { streamId } = parsed;
    const reply = (await this.#connection.script(
      REPLAY,
      [this.#keys.session(sessionId), this.#keys.events(sessionId)],
      [streamId, parsed.seq],
    )) as RedisReply[];
    const events: ReplayedEvents['events'] = [];
    for (let i = 2; i + 1 < reply.length; i += 2)
      events.push({ id: `${streamId}-${reply[i]}`, message: String(reply[i + 1]) });
    const finished = reply[0] === 1;
    const request = reply[1];
    return {
      streamId,
      events,
      finished,
      requestId:
        typeof request === 'string' && request !== ''
          ? (JSON.parse(request) as string | number)
          : undefined,
    };
  }

  /** The session's events go (its record is deleted by the manager). */
  async dropSession(sessionId: string): Promise<void> {
    await this.#connection.command(['DEL', this.#keys.events(sessionId)]);
  }

  /** What Redis holds for a session: events and their bytes (tests, operators). */
  async usage(sessionId: string): Promise<{ events: number; bytes: number }> {
    const [events, bytes] = await this.#connection.pipeline([
      ['XLEN', this.#keys.events(sessionId)],
      ['HGET', this.#keys.session(sessionId), 'eb'],
    ]);
    return { events: Number(events ?? 0), bytes: Number(bytes ?? 0) };
  }
}
