import type { DurableObjectState } from './workers-types.ts';

/** One user of a Durable Object's alarm and storage (its session manager, its task store). */
export interface AlarmUser {
  /**
   * The alarm fired: do what is due at `now` (reap, expire), and tell when the alarm is next
   * needed, if ever.
   */
  due(now: number): number | undefined | Promise<number | undefined>;
  /** Whether it still keeps something in the object's storage. */
  readonly holding: boolean;
  /** The object's storage was deleted (nobody held anything): forget what was loaded from it. */
  cleared?(): void;
}

/**
 * A Durable Object has one alarm; its session manager and its task store share it. Each asks for
 * the alarm at the time it needs it (`request`), and when it fires every user is asked what is due
 * and when it next needs it (one `alarm()` serves both). When no user holds anything any more, the
 * object's storage and alarm are deleted, so an ended session or an expired task leaves nothing
 * behind.
 */
export class ObjectAlarm {
  readonly #state: DurableObjectState;
  readonly #users: AlarmUser[] = [];
  /** When the scheduled alarm fires, if one is (as this instance set it; it re-checks anyway). */
  #at: number | undefined;
  /** The storage was deleted and nothing asked for the alarm since: nothing to delete again. */
  #clear = false;

  constructor(state: DurableObjectState) {
    this.#state = state;
  }

  add(user: AlarmUser): void {
    this.#users.push(user);
  }

  /** The alarm fires at `at` or earlier (a later request never postpones an earlier one). */
  request(at: number): void {
    this.#clear = false;
    if (this.#at !== undefined && this.#at <= at) return;
    this.#at = at;
    this.#state.storage.setAlarm(at).catch(() => {
      if (this.#at === at) this.#at = undefined;
    });
  }

  /** The object's `alarm()`: every user does what is due; the alarm is set for the next need. */
  async fire(): Promise<void> {
    this.#at = undefined;
    const now = Date.now();
    let next: number | undefined;
    for (const user of this.#users) {
      let at: number | undefined;
      try {
        at = await user.due(now);
      } catch {
        // One user failing must not stop the other's work; it is asked again next time.
        at = now + 60_000;
      }
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    if (!this.#clearIfUnused() && next !== undefined) this.request(next);
  }

  /** A user let go of what it kept: once nobody holds anything, the storage goes. */
  released(): void {
    this.#clearIfUnused();
  }

  #clearIfUnused(): boolean {
    if (this.#clear) return true;
    if (this.#users.some((user) => user.holding)) return false;
    this.#clear = true;
    this.#at = undefined;
    const storage = this.#state.storage;
    storage.deleteAlarm().catch(() => {});
    storage.deleteAll().catch(() => {});
    for (const user of this.#users) user.cleared?.();
    return true;
  }
}
