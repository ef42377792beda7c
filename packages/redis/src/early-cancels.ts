/**
 * Cancels that arrive before their request: a client's `notifications/cancelled`
 * may reach an instance, and be broadcast from there, before the instance running the request has
 * registered it (its touch is still on the way). A cancel that finds no such request is
 * remembered for a few seconds, bounded, and applied when the request registers. Nothing is
 * watched for a session without a remembered cancel.
 */
import type { RequestId } from '@edge-mcp/core';
import type { Session, SessionRequest } from '@edge-mcp/core/cluster';

/** How long a cancel waits for its request. */
export const EARLY_CANCEL_MS = 5000;
/** Cancels remembered per session at most (the oldest go first). */
const PER_SESSION = 100;
/** Sessions with remembered cancels at most (the oldest go first). */
const SESSIONS = 1000;

export class EarlyCancels {
  /** Per session, the request ids and until when they wait. */
  readonly #waiting = new Map<string, Map<RequestId, number>>();
  readonly #watched = new WeakSet<Session>();

  /** No request `requestId` runs in `sessionId` here yet: cancel it if it registers soon. */
  remember(sessionId: string, requestId: RequestId, session: Session | undefined): void {
    let ids = this.#waiting.get(sessionId);
    if (!ids) {
      if (this.#waiting.size >= SESSIONS) {
        const oldest = this.#waiting.keys().next().value as string;
        this.#waiting.delete(oldest);
      }
      ids = new Map();
      this.#waiting.set(sessionId, ids);
    }
    if (ids.size >= PER_SESSION) ids.delete(ids.keys().next().value as RequestId);
    ids.set(requestId, Date.now() + EARLY_CANCEL_MS);
    if (session) this.watch(session);
  }

  /** A replica made here: watched when a cancel waits for one of its requests. */
  adopted(session: Session): void {
    if (this.#waiting.has(session.id)) this.watch(session);
  }

  /** Requests registering in `session` are checked against the remembered cancels. */
  watch(session: Session): void {
    if (this.#watched.has(session)) return;
    this.#watched.add(session);
    const requests = session.requests;
    const set = requests.set;
    requests.set = (id: RequestId, request: SessionRequest) => {
      set.call(requests, id, request);
      if (this.#take(session.id, id))
        // Once the request runs (routing starts it a few microtasks after its exchange was made,
        // where the session was looked up in Redis): its handler then sees the cancel as it would
        // a late one. A macrotask, as any microtask here could come before the run.
        setTimeout(abortAsCancelled, 0, request);
      return requests;
    };
  }

  /** Forgets what waited too long (the heartbeat). */
  prune(now = Date.now()): void {
    for (const [sessionId, ids] of this.#waiting) {
      for (const [id, until] of ids) if (until <= now) ids.delete(id);
      if (ids.size === 0) this.#waiting.delete(sessionId);
    }
  }

  forget(sessionId: string): void {
    this.#waiting.delete(sessionId);
  }

  #take(sessionId: string, id: RequestId): boolean {
    const ids = this.#waiting.get(sessionId);
    const until = ids?.get(id);
    if (until === undefined) return false;
    ids?.delete(id);
    if (ids?.size === 0) this.#waiting.delete(sessionId);
    return until > Date.now();
  }
}

function abortAsCancelled(request: SessionRequest): void {
  request.abort('client-cancel');
}
