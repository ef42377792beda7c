import type { SessionChange } from './session-types.ts';

/** What the state bag tells of its writes (the session). */
interface StateOwner {
  changed(change?: SessionChange): void;
}

const STATE_CLEARED: SessionChange = Object.freeze({ kind: 'state-cleared' });

/** The state bag; writes tell the observer so a durable manager can store them. */
export class SessionState extends Map<string, unknown> {
  readonly #session: StateOwner;
  constructor(session: StateOwner) {
    super();
    this.#session = session;
  }
  override set(key: string, value: unknown): this {
    super.set(key, value);
    // Undefined while Map's constructor runs (it calls set for an initial iterable).
    this.#session?.changed({ kind: 'state', key });
    return this;
  }
  override delete(key: string): boolean {
    const had = super.delete(key);
    if (had) this.#session.changed({ kind: 'state', key });
    return had;
  }
  override clear(): void {
    super.clear();
    this.#session.changed(STATE_CLEARED);
  }
}
