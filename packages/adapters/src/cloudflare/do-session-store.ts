import type { AbortReasonType } from '@edge-mcp/core';
import type {
  SessionInit,
  SessionLoad,
  SessionRecord,
  SessionStore,
  SessionStoreHost,
} from '@edge-mcp/core/sessions';
import { type AlarmUser, ObjectAlarm } from './object-alarm.ts';
import { scopedId } from './session-id.ts';
import type { DurableObjectState } from './workers-types.ts';

const RECORD = 'mcp-session';

/**
 * The `SessionStore` of one Durable Object: the record of the object's single session in its
 * synchronous SQLite-backed KV (so no write is lost and the session goes on after eviction or
 * restart), and its idle timeout on the object's alarm, which the object's task store may share
 * (`options.alarm`): the object's storage goes only once neither keeps anything.
 *
 * The session id is `<object id>.<random token>`: the Worker routes by the object id, and the
 * token makes the id unguessable whatever the object id is.
 */
export class DurableObjectSessionStore implements SessionStore, AlarmUser {
  readonly #state: DurableObjectState;
  readonly #alarm: ObjectAlarm;
  #host: SessionStoreHost | undefined;
  /** The stored session's id; undefined: none; null: not read from storage yet. */
  #id: string | undefined | null = null;
  /** `lastActive` as last stored: it is rewritten only when it moved by a tenth of the timeout. */
  #storedActive = 0;

  constructor(state: DurableObjectState, options: { alarm?: ObjectAlarm } = {}) {
    this.#state = state;
    this.#alarm = options.alarm ?? new ObjectAlarm(state);
    this.#alarm.add(this);
  }

  /** The id of the session stored here, if any (the object's operator calls look it up). */
  get sessionId(): string | undefined {
    return this.#current();
  }

  bind(host: SessionStoreHost): void {
    this.#host = host;
  }

  /** One session per object: a new one ends the one before (as a DELETE would). */
  create(_init: SessionInit): string | Promise<string> {
    const id = scopedId(this.#state.id.toString());
    const previous = this.#current();
    const ended = previous === undefined ? undefined : this.#host?.end(previous, 'session-deleted');
    return ended instanceof Promise ? ended.then(() => id) : id;
  }

  load(id: string): SessionLoad {
    if (this.#current() !== id) return 'gone';
    const record = this.#state.storage.kv.get<SessionRecord>(RECORD);
    if (!record) return 'gone';
    this.#storedActive = record.lastActive;
    return { record, version: 0 };
  }

  write(record: SessionRecord): void {
    this.#state.storage.kv.put(RECORD, record);
    this.#id = record.id;
    this.#storedActive = record.lastActive;
  }

  delete(id: string, _reason: AbortReasonType): boolean {
    if (this.#current() !== id) return false;
    this.#state.storage.kv.delete(RECORD);
    this.#id = undefined;
    // Nothing of it is left; the whole storage goes unless tasks are still kept here.
    this.#alarm.released();
    return true;
  }

  /**
   * No storage write per request: the alarm is set only when none is pending as early (the
   * manager re-checks `lastActive` when it fires), and `lastActive` is stored only when it moved
   * by a tenth of the timeout, so after a restart it is at most that stale.
   */
  touch(id: string, lastActive: number, expiresAt: number): void {
    if (this.#current() !== id) return;
    if (lastActive - this.#storedActive >= (expiresAt - lastActive) / 10) {
      const record = this.#state.storage.kv.get<SessionRecord>(RECORD);
      if (record) this.write({ ...record, lastActive });
    }
    this.#alarm.request(expiresAt);
  }

  /** AlarmUser: the manager reaps the session if it is still idle, or tells when to look again. */
  due(): number | undefined | Promise<number | undefined> {
    const id = this.#current();
    return id === undefined ? undefined : this.#host?.expired(id);
  }

  /** AlarmUser: whether a session's record is stored. */
  get holding(): boolean {
    return this.#current() !== undefined;
  }

  /** AlarmUser: the object's storage was deleted. */
  cleared(): void {
    this.#id = undefined;
  }

  #current(): string | undefined {
    if (this.#id === null)
      this.#id = this.#state.storage.kv.get<SessionRecord>(RECORD)?.id ?? undefined;
    return this.#id;
  }
}
