import type { AbortReasonType } from '@edge-mcp/core';
import { objectIdOf } from './session-id.ts';
import { CONTROL, type SessionInspection } from './session-object.ts';
import { listSessions, report } from './session-registry.ts';
import type { DurableObjectNamespace } from './workers-types.ts';

export type { SessionInspection } from './session-object.ts';

/** Operator access to a deployment's session objects; see {@link sessionControl}. */
export interface SessionControl {
  /**
   * Ends the session (its handlers are aborted with `reason`, its storage deleted). With
   * `asPrincipal`, only if that principal owns it: false otherwise, as for an unknown session.
   */
  close(sessionId: string, reason?: AbortReasonType, asPrincipal?: string): Promise<boolean>;
  /** Ends every live session of the deployment; resolves with how many were ended. */
  closeAll(reason?: AbortReasonType): Promise<number>;
  /**
   * What the session's object holds. With `asPrincipal`, another principal's session reads as no
   * session (`session: undefined`), exactly like one that does not exist.
   */
  inspect(sessionId: string, asPrincipal?: string): Promise<SessionInspection>;
}

/**
 * Operator access to session objects from Worker code (an admin route behind your auth, a cron):
 * end one session with a typed reason, end every session of the deployment (needs the
 * `SessionRegistry` bound and passed to `defineSessionObject` as `registry`), or look at what a
 * session holds.
 */
export function sessionControl(
  namespace: DurableObjectNamespace,
  registry?: DurableObjectNamespace,
): SessionControl {
  const stub = (sessionId: string) => {
    const objectId = objectIdOf(namespace, sessionId);
    if (objectId === undefined) throw new TypeError(`Not a session id: ${sessionId}`);
    return namespace.get(objectId);
  };
  return {
    async close(
      sessionId: string,
      reason: AbortReasonType = 'session-deleted',
      asPrincipal?: string,
    ): Promise<boolean> {
      const response = await stub(sessionId).fetch(
        new Request(`${CONTROL}/close?reason=${reason}${as(asPrincipal)}`, { method: 'POST' }),
      );
      return ((await response.json()) as { closed: boolean }).closed;
    },
    async closeAll(reason: AbortReasonType = 'shutdown'): Promise<number> {
      if (!registry) throw new TypeError('closeAll needs the SessionRegistry namespace');
      const ids = await listSessions(registry);
      const closed = await Promise.all(ids.map((id) => this.close(id, reason).catch(() => false)));
      // Entries whose object had already ended (a lost report) are dropped too.
      await Promise.all(ids.map((id) => report(registry, 'close', id)));
      return closed.filter(Boolean).length;
    },
    async inspect(sessionId: string, asPrincipal?: string): Promise<SessionInspection> {
      const query = asPrincipal === undefined ? '' : `?${as(asPrincipal).slice(1)}`;
      return (await (
        await stub(sessionId).fetch(new Request(`${CONTROL}/inspect${query}`))
      ).json()) as SessionInspection;
    },
  };
}

/** `&as=<principal>` for a control call made on a principal's behalf. */
function as(principal: string | undefined): string {
  return principal === undefined ? '' : `&as=${encodeURIComponent(principal)}`;
}
