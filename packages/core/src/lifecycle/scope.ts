import { type AbortReasonType, RequestAbortedError } from './abort-reason.ts';

/**
 * A node of the cancellation tree: server → (session →) request.
 *
 * Aborting a scope aborts its whole subtree with the same typed reason. Children are held in a
 * Set and walked directly instead of each child listening on its parent's signal, so a
 * long-lived server signal never accumulates one listener per request.
 *
 * A scope is also the `handleEvent` target for an outside signal (the HTTP exchange's
 * `request.signal`, the server's `signal` option), which avoids a closure per request.
 */
export class Scope {
  readonly signal: AbortSignal;
  readonly #controller: AbortController;
  readonly #parent: Scope | undefined;
  readonly #children = new Set<Scope>();
  /** Reason applied when an attached outside signal aborts. */
  #externalReason: AbortReasonType = 'disconnect';
  #external: AbortSignal | undefined;

  constructor(parent?: Scope) {
    this.#controller = new AbortController();
    this.signal = this.#controller.signal;
    this.#parent = parent;
    if (parent) {
      if (parent.signal.aborted) this.#controller.abort(parent.signal.reason);
      else parent.#children.add(this);
    }
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** The typed reason, once aborted. */
  get reason(): AbortReasonType | undefined {
    const reason: unknown = this.signal.reason;
    return reason instanceof RequestAbortedError ? reason.type : undefined;
  }

  get size(): number {
    return this.#children.size;
  }

  /** Aborts this scope and every descendant with `type`. Idempotent: the first reason wins. */
  abort(type: AbortReasonType, error: RequestAbortedError = new RequestAbortedError(type)): void {
    if (this.signal.aborted) return;
    this.#controller.abort(error);
    this.#detachExternal();
    for (const child of this.#children) child.abort(type, error);
    this.#children.clear();
  }

  /** Aborts with `reason` when `signal` aborts; released by `dispose()`. */
  follow(signal: AbortSignal, reason: AbortReasonType): void {
    this.#externalReason = reason;
    if (signal.aborted) {
      this.abort(reason);
      return;
    }
    this.#external = signal;
    signal.addEventListener('abort', this);
  }

  handleEvent(): void {
    this.abort(this.#externalReason);
  }

  /** Leaves the tree: the parent forgets this scope and outside listeners are removed. */
  dispose(): void {
    if (this.#parent) this.#parent.#children.delete(this);
    this.#detachExternal();
  }

  #detachExternal(): void {
    if (this.#external) {
      this.#external.removeEventListener('abort', this);
      this.#external = undefined;
    }
  }
}
