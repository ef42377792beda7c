/**
 * The bytes of request bodies the server holds while their requests run: a process-wide budget
 * and one per principal. A body is charged as it is read (its declared length up front, a chunked
 * one chunk by chunk) and given back when its request and every exchange it made have ended; a
 * dropped resumable call kept for its grace counts against its owner until it ends. Without it,
 * `limits.maxInFlight` × `maxBodyBytes` (40 GiB by default) was the only bound.
 *
 * @module
 */

/** Which budget refused a charge. */
export type BudgetRefusal = 'process' | 'principal';

/** Byte counts of the whole handler and of each principal with bytes held. */
export class InFlightBytes {
  readonly max: number;
  readonly maxPerPrincipal: number;
  #total = 0;
  readonly #byPrincipal = new Map<string, number>();

  constructor(max: number, maxPerPrincipal: number) {
    this.max = max;
    this.maxPerPrincipal = maxPerPrincipal;
  }

  /** Bytes held now, in all. */
  get total(): number {
    return this.#total;
  }

  /** Bytes `principal` holds now. */
  heldBy(principal: string): number {
    return this.#byPrincipal.get(principal) ?? 0;
  }

  /** Takes `bytes` for `principal`: `undefined` when taken, else the budget that is full. */
  take(principal: string, bytes: number): BudgetRefusal | undefined {
    if (this.#total + bytes > this.max) return 'process';
    const held = this.#byPrincipal.get(principal) ?? 0;
    if (held + bytes > this.maxPerPrincipal) return 'principal';
    this.#total += bytes;
    this.#byPrincipal.set(principal, held + bytes);
    return undefined;
  }

  give(principal: string, bytes: number): void {
    this.#total -= bytes;
    const left = (this.#byPrincipal.get(principal) ?? 0) - bytes;
    // No entry stays behind for a principal that holds nothing (the map is bounded by holders).
    if (left <= 0) this.#byPrincipal.delete(principal);
    else this.#byPrincipal.set(principal, left);
  }
}

/**
 * What one request holds of the budget: one object per request, shared by the exchanges it
 * makes (a batch makes several). The router holds a reference while it routes; each exchange
 * holds one until it is disposed; the bytes go back with the last.
 */
export class HeldBytes {
  readonly #budget: InFlightBytes;
  readonly principal: string;
  bytes = 0;
  /** Which budget refused the last `take`, for the answer. */
  refused: BudgetRefusal | undefined;
  #refs = 1;

  constructor(budget: InFlightBytes, principal: string) {
    this.#budget = budget;
    this.principal = principal;
  }

  /** Charges `bytes` more; false (and `refused` set) when a budget cannot take them. */
  take(bytes: number): boolean {
    const refused = this.#budget.take(this.principal, bytes);
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

  /** A holder is done; the last one gives the bytes back. Safe to call once per holder. */
  release(): void {
    if (--this.#refs > 0 || this.bytes === 0) return;
    this.#budget.give(this.principal, this.bytes);
    this.bytes = 0;
  }
}
