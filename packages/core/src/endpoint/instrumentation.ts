import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { HandlerStats, RequestEvent, SessionEvent } from './events.ts';

/** A request about to run, as an instrumentation sees it. */
export interface RequestStart {
  readonly id: RequestId;
  readonly method: string;
  /** Tool or prompt name, or resource URI, the request names. */
  readonly name: string | undefined;
  readonly protocolVersion: string;
  /** The legacy session, if any. */
  readonly sessionId: string | undefined;
  /** The request's `params._meta`: where a client puts W3C trace context (`traceparent`). */
  readonly meta: JsonObject;
}

/** One request followed by an instrumentation (a span, a timer). */
export interface RequestObservation {
  /** Runs the request's method inside the observation (so a handler's own spans are children). */
  run<T>(fn: () => T): T;
  /** The request settled; `event` is what the request log gets. */
  end(event: RequestEvent): void;
}

/**
 * Observes the handler: requests as they run and end, sessions as they end, and the live stats.
 * `@edge-mcp/core/otel` implements it with OpenTelemetry; without one, nothing is measured and
 * nothing is allocated for it.
 */
export interface Instrumentation {
  /** A request starts; what it returns follows the request until it settles. */
  request(start: RequestStart): RequestObservation | undefined;
  /** A request was refused before its method ran (`event.outcome` is `refused`). */
  refused?(event: RequestEvent): void;
  /** A legacy session ended, after `durationMs`. */
  sessionClosed?(event: SessionEvent, durationMs: number): void;
  /** The handler's live counters, read whenever the instrumentation wants them; returns a release. */
  observe?(stats: () => HandlerStats): () => void;
}
