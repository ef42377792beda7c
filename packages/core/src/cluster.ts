/**
 * @module
 * edge-mcp core, for cluster implementers (what `@edge-mcp/redis` builds on): sessions that span
 * several instances. Besides a shared `SessionStore` (`@edge-mcp/core/sessions`), a cluster gives
 * the `SessionManager` a `SessionCluster`: the ids that name an instance, and where requests and
 * streams held elsewhere are reached (relayed streams); and the handler a `ClusterBus`, which
 * carries list and resource notifications to the other instances. Memory and Durable Objects use
 * none of it.
 */
export type { ClusterBus, ClusterEvent, ClusterHost } from './sessions/cluster.ts';
export type {
  ClientResponse,
  RemoteSink,
  RemoteStreamLink,
  Session,
  SessionIds,
  SessionRequest,
  SessionStream,
} from './sessions/session.ts';
export type { SessionCluster } from './sessions/session-seams.ts';
