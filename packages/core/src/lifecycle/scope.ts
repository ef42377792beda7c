import { type AbortReasonType, RequestAbortedError } from './abort-reason.ts';

/**
 * A node of the cancellation tree. This file is the one place the tree lives:
 *
 * ```text
 * root (HandlerCore.root)                  aborted by close() / the `signal` option: `shutdown`
 * ├── ModernExchange                       one 2026-07-28 request
 * ├── LegacyExchange                       a legacy request without a session
 * ├┄┄ Session (held by its SessionManager, not in the root's child set)
 * │   └── LegacyExchange                   `client-cancel`, `session-deleted`, `session-expired`
 * └── Scope of a task's handler            under the root, never under its request
 * ```
 *
 * Sessions stay out of the root's child set (memory and time per initialize): the handler's
 * `close()` closes every session through its manager *before* it aborts the root, so shutdown
 * still reaches them. Every abort carries a typed reason (`RequestAbortedError.type`).
 *
 * A disconnect comes in by one of three doors, all ending in `abort('disconnect')` of the
 * request's scope:
 * 1. `request.watch(scope)`: an adapter's light request calls `scope.handleEvent()` when the
 *    client leaves (Node; no AbortSignal per request) — `followRequest`;
 * 2. `request.signal` aborting (Web runtimes) — `followRequest` falls back to it, and a legacy
 *    stream that took over watching listens on it too;
 * 3. the SSE body cancelled by the runtime (`SseOwner.disconnected`; on workerd the only one).
 *
 * Aborting a scope aborts its whole subtree with the same reason. Children are held in a list and
 * walked directly instead of each child listening on its parent's signal, so a long-lived root
 * never accumulates one listener per request. The AbortController is created only when someone
 * reads `signal`: an idle session or a handler that never looks at its signal costs none, and on
 * workerd no AbortSignal made while serving one request is ever touched by another (which workerd
 * forbids). A scope is the `handleEvent` target of what it follows, so following a request costs
 * no closure.
 */
export class Scope {
  #controller: AbortController | undefined;
  #type: AbortReasonType | undefined;
  /**
   * Made on first need: an Error captures a stack (about 6 µs), and most scopes end with nobody
   * reading their reason's error — an idle session reaped by the sweep, a request whose handler
   * never looked at its signal.
   */
  #error: RequestAbortedError | undefined;
  readonly #parent: Scope | undefined;
  /**
   * Children as an intrusive list in creation order: linking and unlinking a request costs a few
   * writes and no hashing (a Set took an identity hash per request and rehashed its table as
   * requests came and went, on every request's path).
   */
  #first: Scope | undefined;
  #last: Scope | undefined;
  #prev: Scope | undefined;
  #next: Scope | undefined;
  #linked = false;
  #external: AbortSignal | undefined;
  #watched: { watch?(listener: Scope | undefined): void } | undefined;
  /** The request whose signal is read and listened to once the work waits (`followPending`). */
  #pending: { readonly signal: AbortSignal } | undefined;

  /**
   * `tracked: false` leaves the scope out of its parent's child set, for a child that something
   * else already holds and aborts first (sessions: their manager, which the handler closes before
   * it aborts the root). It is still born aborted under an aborted parent.
   */
  constructor(parent?: Scope, tracked = true) {
    this.#parent = parent;
    if (parent) {
      if (parent.#type !== undefined) {
        this.#type = parent.#type;
        this.#error = parent.#error;
      } else if (tracked) {
        const last = parent.#last;
        this.#prev = last;
        if (last === undefined) parent.#first = this;
        else last.#next = this;
        parent.#last = this;
        this.#linked = true;
      }
    }
  }

  /** Aborts when the scope is aborted; `reason` is a `RequestAbortedError`. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#type !== undefined) this.#controller.abort(this.abortError);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#type !== undefined;
  }

  /** The typed reason, once aborted. */
  get reason(): AbortReasonType | undefined {
    return this.#type;
  }

  /** The abort error (`signal.reason`), once aborted. */
  get abortError(): RequestAbortedError | undefined {
    if (this.#type === undefined) return undefined;
    this.#error ??= new RequestAbortedError(this.#type);
    return this.#error;
  }

  /** Aborts this scope and every descendant with `type`. Idempotent: the first reason wins. */
  abort(type: AbortReasonType, error?: RequestAbortedError): void {
    if (this.#type !== undefined) return;
    this.#type = type;
    // One error for the whole subtree, made now only if a signal or a child will carry it.
    if (error === undefined && (this.#controller !== undefined || this.#first !== undefined)) {
      error = new RequestAbortedError(type);
    }
    this.#error = error;
    this.#controller?.abort(error);
    this.#detachExternal();
    // Unlinked first, so nothing a child's abort runs (a dispose) walks a list being changed. A
    // scope without children (most: an idle session, a request) makes no array.
    if (this.#first !== undefined) {
      const children: Scope[] = [];
      for (let child: Scope | undefined = this.#first; child !== undefined; ) {
        const next: Scope | undefined = child.#next;
        child.#prev = undefined;
        child.#next = undefined;
        child.#linked = false;
        children.push(child);
        child = next;
      }
      this.#first = undefined;
      this.#last = undefined;
      for (const child of children) child.abort(type, error);
    }
    this.onAbort(type);
  }

  /**
   * What a kind of scope does once it and its subtree are aborted (an exchange settles its
   * answer, a session ends its streams and runs its hooks): called once, after the children.
   * `abort` itself is not overridden, so the tree's order is this one method's.
   */
  protected onAbort(_type: AbortReasonType): void {}

  /**
   * Aborts with `disconnect` when the request's client leaves: through `request.watch` when the
   * adapter offers it (no AbortSignal needed), else through `request.signal`, which is read, and
   * listened to, only by `followPending()` once the work waits for something: no abort event can
   * come while the work runs synchronously, and a method that answers at once never needs the
   * signal. On Deno reading it makes the runtime build one and, without
   * `--unstable-no-legacy-abort`, abort it after every response: about 4 µs a request, measured
   * by the bench's README targets. Released by `dispose()` or `unfollow()`.
   */
  followRequest(request: {
    readonly signal: AbortSignal;
    watch?(listener: Scope | undefined): void;
  }): void {
    if (request.watch) {
      this.#watched = request;
      request.watch(this);
      return;
    }
    this.#pending = request;
  }

  /** Starts listening on the signal of the request `followRequest` was given, if any. */
  protected followPending(): void {
    const request = this.#pending;
    if (request === undefined) return;
    this.#pending = undefined;
    const signal = request.signal;
    if (signal.aborted) {
      this.abort('disconnect');
      return;
    }
    this.#external = signal;
    signal.addEventListener('abort', this);
  }

  /** Stops following the request (`followRequest`), e.g. when a stream takes over watching it. */
  protected unfollow(): void {
    this.#detachExternal();
  }

  /** The followed request's client left. */
  handleEvent(): void {
    this.abort('disconnect');
  }

  /** Leaves the tree: the parent forgets this scope and outside listeners are removed. */
  dispose(): void {
    const parent = this.#parent;
    if (this.#linked && parent !== undefined) {
      const prev = this.#prev;
      const next = this.#next;
      if (prev === undefined) parent.#first = next;
      else prev.#next = next;
      if (next === undefined) parent.#last = prev;
      else next.#prev = prev;
      this.#prev = undefined;
      this.#next = undefined;
      this.#linked = false;
    }
    this.#detachExternal();
  }

  #detachExternal(): void {
    this.#pending = undefined;
    if (this.#watched) {
      this.#watched.watch?.(undefined);
      this.#watched = undefined;
    }
    if (this.#external) {
      this.#external.removeEventListener('abort', this);
      this.#external = undefined;
    }
  }
}
