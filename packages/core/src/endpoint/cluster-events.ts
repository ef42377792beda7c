import type { Registry } from '../server/registry.ts';
import type { ClusterBus, ClusterEvent } from '../sessions/cluster.ts';

/**
 * Sends the server-wide events raised on this instance (`notifyListChanged()`,
 * `notifyResourceUpdated()`: origin `cluster`) to the other instances. Registration changes
 * (`local`) stay here, and events delivered from elsewhere (`remote`) are not sent back, so
 * nothing loops. Returns the function that stops it.
 */
export function publishEvents(registry: Registry, bus: ClusterBus): () => void {
  const offLists = registry.onListChanged((list, origin) => {
    if (origin === 'cluster') bus.publish({ kind: 'list-changed', list });
  });
  const offUpdates = registry.onResourceUpdated((uri, origin) => {
    if (origin === 'cluster') bus.publish({ kind: 'resource-updated', uri });
  });
  return () => {
    offLists();
    offUpdates();
  };
}

/** An event raised on another instance, told to this instance's streams (origin `remote`). */
export function deliverEvent(registry: Registry, event: ClusterEvent): void {
  if (event.kind === 'list-changed') registry.listChanged(event.list, 'remote');
  else if (event.kind === 'resource-updated') registry.resourceUpdated(event.uri, 'remote');
}
