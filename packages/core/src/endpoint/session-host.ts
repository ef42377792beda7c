/**
 * What a handler lends its session manager (`SessionHost`): the only way to make session objects,
 * and the one end sequence every store's sessions go through.
 *
 * @module
 */
import type { HandlerCounters } from '../http/stream-settings.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { Scope } from '../lifecycle/scope.ts';
import type { EventStore } from '../sessions/event-store.ts';
import { Session, type SessionInit, type SessionRecord } from '../sessions/session.ts';
import type { SessionHost } from '../sessions/session-seams.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { McpHandlerOptions } from './options.ts';
import { emitSessionEvent, sessionEventOf } from './request-event.ts';

function ignore(): void {}

export class HandlerSessionHost implements SessionHost {
  readonly #root: Scope;
  readonly #counters: HandlerCounters;
  readonly #tasks: TaskEngine | undefined;
  readonly #eventStore: EventStore | undefined;
  readonly #options: McpHandlerOptions;

  constructor(
    root: Scope,
    counters: HandlerCounters,
    tasks: TaskEngine | undefined,
    eventStore: EventStore | undefined,
    options: McpHandlerOptions,
  ) {
    this.#root = root;
    this.#counters = counters;
    this.#tasks = tasks;
    this.#eventStore = eventStore;
    this.#options = options;
  }

  /**
   * Sessions hang under the root but stay out of its child set: the manager holds them and
   * `close()` closes it before the root aborts (memory and time per initialize).
   */
  open(id: string, init: SessionInit): Session {
    return new Session(this.#root, id, init);
  }

  restore(record: SessionRecord): Session {
    return Session.restore(this.#root, record);
  }

  /** The one end sequence of every store's sessions (abort, dispose, notify). */
  end(session: Session, reason: AbortReasonType): void {
    session.abort(reason);
    session.dispose();
    if (reason === 'session-evicted') this.#counters.evicted++;
    // Its session-bound tasks can no longer be reached by anyone.
    if (reason !== 'shutdown') this.#tasks?.endSession(session.id);
    const instrumentation = this.#options.instrumentation;
    if (instrumentation?.sessionClosed) {
      try {
        instrumentation.sessionClosed(
          sessionEventOf(session, reason, undefined),
          Date.now() - session.openedAt,
        );
      } catch {}
    }
    try {
      // A custom store may fail; its session is gone either way, and its rejection must not be
      // left unhandled (that ends a Node process).
      const dropped = this.#eventStore?.dropSession(session.id);
      if (dropped instanceof Promise) dropped.catch(ignore);
    } catch {}
    emitSessionEvent(this.#options.onSessionClose, sessionEventOf(session, reason, undefined));
  }

  /**
   * This instance let go of a session that did not end here (it ended elsewhere, or this
   * instance shuts down). No hook or event: the instance that ended it ran them.
   */
  release(session: Session, reason: AbortReasonType): void {
    session.abort(reason);
    session.dispose();
    if (reason !== 'shutdown') this.#tasks?.endSession(session.id);
  }
}
