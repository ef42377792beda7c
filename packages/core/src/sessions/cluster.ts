import type { ListKind } from '../server/registry.ts';

/** A server-wide event raised on one instance that every instance's streams must hear. */
export type ClusterEvent =
  | { readonly kind: 'list-changed'; readonly list: ListKind }
  | { readonly kind: 'resource-updated'; readonly uri: string };

/** What the handler lends its cluster bus when it binds it. */
export interface ClusterHost {
  /** An event raised on another instance: delivered to this instance's streams only. */
  deliver(event: ClusterEvent): void;
}

/**
 * Carries server-wide events between the instances of a deployment (the handler's `cluster`
 * option): `server.notifyListChanged()` and `notifyResourceUpdated()` on one instance reach the
 * listen streams and legacy GET streams on every other. Registration changes are not sent (each
 * instance registers its own tools and tells its own streams).
 */
export interface ClusterBus {
  /** The handler binds itself once, before anything is published (like `SessionManager.bind`). */
  bind(host: ClusterHost): void;
  /** An event raised here: deliver it to every other instance (not back to this one). */
  publish(event: ClusterEvent): void;
}
