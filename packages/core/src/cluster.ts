/**
 * @module
 * edge-mcp core, for cluster implementers (what `@edge-mcp/redis` builds on): sessions that span
 * several instances. A holder of live sessions (`SessionHolder`) made through the handler's
 * `SessionHost`, where requests and streams held elsewhere are reached (`SessionCluster`, relayed
 * streams), and the bus that carries list and resource notifications to the other instances
 * (`ClusterBus`). Memory and Durable Objects use none of it.
 */
export type { ClusterBus, ClusterEvent, ClusterHost } from './sessions/cluster.ts';
export type {
  ClientResponse,
  PendingRequest,
  RemoteSink,
  RemoteStreamLink,
  Session,
  SessionIds,
  SessionObserver,
  SessionRequest,
  SessionStream,
} from './sessions/session.ts';
export type { SessionCluster, SessionHolder, SessionHost } from './sessions/session-seams.ts';
