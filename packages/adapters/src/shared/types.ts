/**
 * Structural types shared by the adapters. They mirror `@edge-mcp/core` without importing it, so
 * the adapters also accept any other fetch-style handler (a Hono app, for one).
 *
 * @module
 */

/** A Web-standard request handler, such as the one `createMcpHandler()` returns. */
export interface FetchHandler {
  /**
   * Answers one HTTP exchange. `request.signal` is the cancellation token of that exchange: the
   * adapters abort it when the client disconnects before the response is complete.
   *
   * The return type also admits a plain `Response` so that `app.fetch` of frameworks such as Hono
   * fits; the core handler always returns a promise.
   */
  fetch(request: Request): Response | Promise<Response>;
  /**
   * Aborts every in-flight exchange and ends open streams; resolves once they have settled.
   * Called by the adapters' graceful shutdown with the reason `'shutdown'`.
   */
  close?(reason?: unknown): Promise<void>;
}

/** Receives errors that escaped the handler or broke a response while it was being written. */
export type ErrorReporter = (error: unknown) => void;
