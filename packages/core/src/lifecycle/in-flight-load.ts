/**
 * What the requests running hold: the bytes of their bodies (a process-wide budget and one per
 * principal) and, per principal, how many run at once. A body is charged as it is read (its
 * declared length up front, a chunked one chunk by chunk) and given back when its request and
 * every exchange it made have ended; a dropped resumable call kept for its grace counts against
 * its owner until it ends. Without it, `limits.maxInFlight` × `maxBodyBytes` (40 GiB by default)
 * was the only bound, and one client could take every slot of `limits.maxInFlight`.
 *
 * @module
 */

/** Which budget refused a charge. */
export type BudgetRefusal = 'process' | 'principal';

/**
 * What the requests running hold, per handler and per principal: their body bytes, and (per
 * principal) how many there are. Entries exist only for principals holding something, so the
 * maps are bounded by the requests in flight.
 */
export class InFlightLoad {
  readonly max: number;
  readonly maxPerPrincipal: number;
  readonly maxRequestsPerPrincipal: number;
  #total = 0;
  readonly #bytes = new Map<string, number>();
  readonly #requests = new Map<string, number>();

  constructor(max: number, maxPerPrincipal: number, maxRequestsPerPrincipal: number) {
    this.max = max;
    this.maxPerPrincipal = maxPerPrincipal;
    this.maxRequestsPerPrincipal = maxRequestsPerPrincipal;
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total;
  }

  /** Bytes `principal` holds now. */
  heldBy(principal: string): number {
    return this.#bytes.get(principal) ?? 0;
  }

  /** Requests of `principal` running now. */
  runningFor(principal: string): number {
    return this.#requests.get(principal) ?? 0;
  }

  /** One more request of `principal`; false (nothing counted) when it has its maximum running. */
  enter(principal: string): boolean {
    const running = this.#requests.get(principal) ?? 0;
    if (running >= this.maxRequestsPerPrincipal) return false;
    this.#requests.set(principal, running + 1);
    return true;
  }

  leave(principal: string): void {
    const left = (this.#requests.get(principal) ?? 0) - 1;
    if (left <= 0) this.#requests.delete(principal);
    else this.#requests.set(principal, left);
  }

  /** Takes `bytes` for `principal`: `undefined` when taken, else the budget that is full. */
  take(principal: string, bytes: number): BudgetRefusal | undefined {
    if (this.#total + bytes > this.max) return 'process';
    const held = this.#bytes.get(principal) ?? 0;
    if (held + bytes > this.maxPerPrincipal) return 'principal';
    this.#total += bytes;
    this.#bytes.set(principal, held + bytes);
    return undefined;
  }

  give(principal: string, bytes: number): void {
    this.#total -= bytes;
    const left = (this.#bytes.get(principal) ?? 0) - bytes;
    if (left <= 0) this.#bytes.delete(principal);
    else this.#bytes.set(principal, left);
  }
}

/**
 * What one request holds of the load: its place among its principal's requests running and its
 * body bytes. One object per request, shared by the exchanges it makes (a batch makes several).
 * The router holds a reference while it routes; each exchange holds one until it is disposed;
 * everything goes back with the last.
 */
export class RequestLoad {
  readonly #load: InFlightLoad;
  readonly principal: string;
  bytes = 0;
  /** Which budget refused the last `take`, for the answer. */
  refused: BudgetRefusal | undefined;
  #refs = 1;
  #entered = false;

  constructor(load: InFlightLoad, principal: string) {
    this.#load = load;
    this.principal = principal;
  }

  /** Counts the request among its principal's; false when the principal has too many running. */
  enter(): boolean {
    this.#entered = this.#load.enter(this.principal);
    return this.#entered;
  }

  /** Charges `bytes` more; false (and `refused` set) when a budget cannot take them. */
  take(bytes: number): boolean {
    const refused = this.#load.take(this.principal, bytes);
    if (refused !== undefined) {
      this.refused = refused;
      return false;
    }
    this.bytes += bytes;
    return true;
  }

  /** One more holder (an exchange made for the request). */
  retain(): void {
    this.#refs++;
  }

  /** A holder is done; the last one gives everything back. Safe to call once per holder. */
  release(): void {
    if (--this.#refs > 0) return;
    if (this.bytes > 0) this.#load.give(this.principal, this.bytes);
    this.bytes = 0;
    if (this.#entered) this.#load.leave(this.principal);
    this.#entered = false;
  }
}
