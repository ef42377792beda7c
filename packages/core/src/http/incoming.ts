/**
 * What the core reads of a request. A Web `Request` is one; an adapter may pass a lighter object
 * (the Node adapter does) to spare building a `Request` per call.
 */
export interface IncomingRequest {
  readonly method: string;
  /** Absolute URL (the Host check reads its authority). */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The cancellation token of this HTTP exchange. */
  readonly signal: AbortSignal;
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * Optional fast path for the whole body as text; must refuse more than `limit` bytes while
   * reading by throwing `BodyTooLargeError`, and with `charge` (a body without Content-Length),
   * charge each chunk as it arrives and stop with `BudgetExceededError` when it is refused.
   */
  readText?(limit: number, charge?: BodyCharge): Promise<string>;
  /** The client's IP address as the runtime sees it (the peer of the connection), if known. */
  readonly remoteAddress?: string | undefined;
  /**
   * Optional: call `listener.handleEvent()` once when the client disconnects (or at once if it
   * already has); `undefined` stops. When present the core uses it instead of `signal`, which
   * spares an AbortSignal and its listener per request.
   */
  watch?(listener: DisconnectListener | undefined): void;
}

/** A byte budget a body is charged to while it is read (the handler's in-flight bytes). */
export interface BodyCharge {
  /** Takes `bytes` more; false when the budget cannot (the read then stops). */
  take(bytes: number): boolean;
}

export interface DisconnectListener {
  handleEvent(): void;
}
