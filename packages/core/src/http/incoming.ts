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
   * reading by throwing `BodyTooLargeError`.
   */
  readText?(limit: number): Promise<string>;
  /**
   * Optional: call `listener.handleEvent()` once when the client disconnects (or at once if it
   * already has); `undefined` stops. When present the core uses it instead of `signal`, which
   * spares an AbortSignal and its listener per request.
   */
  watch?(listener: DisconnectListener | undefined): void;
}

export interface DisconnectListener {
  handleEvent(): void;
}
