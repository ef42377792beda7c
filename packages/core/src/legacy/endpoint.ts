import type { IncomingRequest } from '../http/incoming.ts';
import type { Endpoint } from '../server/endpoint.ts';
import type { Session } from '../sessions/session.ts';
import type { SessionHolder } from '../sessions/session-seams.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { LegacyConfig } from './exchange.ts';

/** What the legacy era reads of the endpoint besides what both eras read. */
export interface LegacyEndpoint extends Endpoint {
  /** Where sessions live; `undefined` when the handler serves the legacy revisions without them. */
  readonly sessions: SessionHolder | undefined;
  /** Streams, event store, disconnect policy and the counters the handler reports. */
  readonly legacy: LegacyConfig;
  /** `Allow` header of 405 answers. */
  readonly allow: string;
  /** Runs tasks (2025-11-25 sessions), when the server has tools that may run as ones. */
  readonly tasks: TaskEngine | undefined;
  /** A session was opened by `initialize` (counts it, runs the hook). */
  sessionOpened(session: Session, request: IncomingRequest): void;
}
