import { notificationMessage } from '../protocol/jsonrpc.ts';
import type { Registry } from '../server/registry.ts';
import { sees } from '../server/visibility.ts';
import type { Session } from '../sessions/session.ts';
import type { SessionHolder } from '../sessions/session-seams.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import { legacyTask } from './tasks.ts';

const EMPTY = {};

/**
 * Server notifications to legacy sessions, on their standalone (GET) streams: list changes to
 * every session that has opened one (of a registration with `visibleTo`, those whose caller sees
 * it), resource updates to the sessions subscribed to the URI.
 * One listener per handler, not one per session. Returns the function that removes them. Every
 * origin is sent (a change delivered from another instance reaches the streams held here).
 */
export function fanOut(registry: Registry, sessions: SessionHolder): () => void {
  const offLists = registry.onListChanged((kind, _origin, visible) => {
    const message = notificationMessage(`notifications/${kind}/list_changed`, EMPTY);
    sessions.forEach((session) => {
      // A change of what the session's caller cannot see is no change to its lists.
      if (visible === undefined || sees(visible, session.viewer)) session.standalone?.send(message);
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

/**
 * `notifications/tasks/status` (2025-11-25) on the standalone stream of the session that created
 * the task, for every change of it. Returns the function that stops them. A manager whose
 * sessions span instances answers `peek` (no round trip, no replica made to send one message):
 * only the instance holding the session's standalone stream sends.
 */
export function taskStatusFanOut(engine: TaskEngine, sessions: SessionHolder): () => void {
  return engine.onChange((record) => {
    const id = record.sessionId;
    if (id === undefined) return;
    const found = sessions.peek ? sessions.peek(id) : sessions.get(id);
    const send = (session: Session | undefined) =>
      session?.standalone?.send(
        notificationMessage('notifications/tasks/status', legacyTask(record)),
      );
    if (found instanceof Promise) found.then(send, () => {});
    else send(found);
  });
}
