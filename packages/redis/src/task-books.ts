/**
 * What one instance's `RedisTaskStore` knows and times of tasks: the version and JSON of tasks it
 * read or wrote (an `update` after them skips a read), its own unfinished tasks with the timer of
 * their TTL, the tasks of other runners it watches, and how recently it saw runners alive. All
 * bounded.
 *
 * @module
 */

/** Tasks whose version and JSON are remembered here. */
const CACHE_LIMIT = 1000;
/** Tasks this instance watches at most (their changes are sent here), and runners it remembers. */
const WATCH_LIMIT = 1000;
/** setTimeout's longest delay. */
const MAX_DELAY = 2 ** 31 - 1;

/** A version and the record's JSON, as last read or written here. */
export interface Known {
  version: number;
  json: string;
}

export class TaskBooks {
  readonly known = new Map<string, Known>();
  /** Unfinished tasks that run here, and the timer of their TTL. */
  readonly mine = new Map<string, ReturnType<typeof setTimeout>>();
  /** Tasks of other runners this instance registered as a watcher of. */
  readonly watching = new Set<string>();
  /** Runners' liveness as last read along with one of their tasks. */
  readonly alive = new Map<string, { alive: boolean; at: number }>();
  /** A task running here reached its TTL, or is gone: its handler stops (`TaskHost.expired`). */
  readonly #expired: (id: string) => void;

  constructor(expired: (id: string) => void) {
    this.#expired = expired;
  }

  remember(id: string, known: Known): void {
    this.known.delete(id);
    this.known.set(id, known);
    if (this.known.size > CACHE_LIMIT) {
      const oldest = this.known.keys().next().value as string;
      this.known.delete(oldest);
    }
  }

  watch(id: string): void {
    this.watching.add(id);
    if (this.watching.size > WATCH_LIMIT) {
      const oldest = this.watching.values().next().value as string;
      this.watching.delete(oldest);
    }
  }

  sawRunner(runner: string, alive: boolean): void {
    this.alive.set(runner, { alive, at: Date.now() });
    if (this.alive.size > WATCH_LIMIT) this.alive.clear();
  }

  /** A task running here: its handler ends at `expiresAt` (this instance's clock). */
  track(id: string, expiresAt: number): void {
    const arm = () => {
      const delay = expiresAt - Date.now();
      if (delay > 0) {
        const timer = setTimeout(arm, Math.min(delay, MAX_DELAY));
        (timer as { unref?: () => void }).unref?.();
        this.mine.set(id, timer);
        return;
      }
      this.mine.delete(id);
      this.known.delete(id);
      this.#expired(id);
    };
    arm();
  }

  /** A task reached a terminal status: nothing more to watch or time. */
  ended(id: string): void {
    const timer = this.mine.get(id);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.mine.delete(id);
    }
    this.watching.delete(id);
  }

  /** A task is gone (expired): a handler still running it here stops. */
  gone(id: string): void {
    this.known.delete(id);
    this.watching.delete(id);
    const timer = this.mine.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.mine.delete(id);
    this.#expired(id);
  }

  clear(): void {
    for (const timer of this.mine.values()) clearTimeout(timer);
    this.mine.clear();
    this.watching.clear();
    this.known.clear();
  }
}
