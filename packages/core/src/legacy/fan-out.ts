import { notificationMessage } from '../protocol/jsonrpc.ts';
import type { Registry } from '../server/registry.ts';
import type { SessionManager } from '../sessions/session-manager.ts';

const EMPTY = {};

/**
 * Server notifications to legacy sessions, on their standalone (GET) streams: list changes to
 * every session that has opened one, resource updates to the sessions subscribed to the URI.
 * One listener per handler, not one per session. Returns the function that removes them.
 */
export function fanOut(registry: Registry, sessions: SessionManager): () => void {
  const offLists = registry.onListChanged((kind) => {
    const message = notificationMessage(`notifications/${kind}/list_changed`, EMPTY);
    sessions.forEach((session) => {
      session.standalone?.send(message);
    });
  });
  const offUpdates = registry.onResourceUpdated((uri) => {
    const message = notificationMessage('notifications/resources/updated', { uri });
    sessions.forEach((session) => {
      if (session.isSubscribed(uri)) session.standalone?.send(message);
    });
  });
  return () => {
    offLists();
    offUpdates();
  };
}
