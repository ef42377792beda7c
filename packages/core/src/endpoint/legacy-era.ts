/**
 * The legacy era's code (2025-03-26 to 2025-11-25: sessions, GET streams, DELETE, batches, the
 * event store), loaded by the handler on the first legacy request through a dynamic `import()`.
 * A 2026-07-28 answer needs none of it, so a server does not parse it at start-up (about a
 * quarter of the core: docs/hot-path.md, "Cold-start rules"). Nothing outside the handler and
 * routing imports this module by value.
 *
 * @module
 */

import type { HandlerCounters } from '../http/stream-settings.ts';
import { fanOut, taskStatusFanOut } from '../legacy/fan-out.ts';
import type { Scope } from '../lifecycle/scope.ts';
import type { Registry } from '../server/registry.ts';
import { type EventStore, MemoryEventStore } from '../sessions/event-store.ts';
import { SessionManager } from '../sessions/session-manager.ts';
import type { SessionHolder } from '../sessions/session-seams.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { McpHandlerOptions } from './options.ts';
import { HandlerSessionHost } from './session-host.ts';

export { combineBatch, prepareBatch } from '../legacy/batch.ts';
export { handleLegacy, type LegacyOutcome } from '../legacy/dispatch.ts';
export { handleDelete, handleGet } from '../legacy/get-delete.ts';

/** What the handler lends the sessions it wires (`wireSessions`). */
export interface SessionWiring {
  readonly root: Scope;
  readonly counters: HandlerCounters;
  readonly registry: Registry;
  readonly tasks: TaskEngine | undefined;
  readonly options: McpHandlerOptions;
}

/** The wired sessions: where they live, their event store, and what undoes the wiring. */
export interface WiredSessions {
  readonly sessions: SessionHolder | undefined;
  readonly eventStore: EventStore | undefined;
  readonly detach: Array<() => void>;
}

/**
 * The handler's sessions (the `sessions` option, or a memory `SessionManager`) and event store
 * (the `eventStore` option, or a memory one), bound to the handler's host, with the server's list
 * changes and task status fanned out to them.
 */
export function wireSessions(host: SessionWiring): WiredSessions {
  const { options } = host;
  if (options.sessions === false) return { sessions: undefined, eventStore: undefined, detach: [] };
  const sessions = options.sessions ?? new SessionManager();
  const eventStore =
    options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore());
  sessions.bind(new HandlerSessionHost(host.root, host.counters, host.tasks, eventStore, options));
  const detach = [fanOut(host.registry, sessions)];
  if (host.tasks) detach.push(taskStatusFanOut(host.tasks, sessions));
  return { sessions, eventStore, detach };
}
