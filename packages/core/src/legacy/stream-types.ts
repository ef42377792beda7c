/** What a legacy stream is built with: the handler's settings, and the request it answers. */
import type { StreamSettings } from '../http/stream-settings.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { RequestId } from '../protocol/jsonrpc.ts';
import type { EventStore } from '../sessions/event-store.ts';

/** What every legacy stream needs from the handler; built once. */
export interface StreamConfig {
  readonly streams: StreamSettings;
  readonly eventStore: EventStore | undefined;
  /** SSE `retry` sent with the priming event (2025-11-25). */
  readonly retryMs: number;
}

/** The request a stream answers, told when its connection drops or comes back. */
export interface StreamOwner {
  /** The request's id (stored with the stream's first event, for a stream whose holder died). */
  readonly id: RequestId;
  /**
   * The connection dropped before the final message: the client left (`disconnect`) or stopped
   * reading and was cut (`stream-overflow`); `resumable`: the client can come back for the rest.
   */
  streamDropped(resumable: boolean, why: AbortReasonType): void;
  /** A resume re-attached the stream. */
  resumed(): void;
}
