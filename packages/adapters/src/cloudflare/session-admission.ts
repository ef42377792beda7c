/**
 * Session caps on Cloudflare: each legacy session is its own Durable Object, so no object can
 * count the others. The session Worker asks the deployment's `SessionRegistry` before it makes a
 * new session object; the registry counts the deployment's sessions and each principal's in one
 * synchronous step, so racing initializes never pass a cap together. At a cap the Worker asks
 * the oldest candidates to leave if they are idle (a session with a request or stream open stays)
 * and asks once more; a principal at its quota is only ever offered its own sessions.
 */
import { type AuthInfo, DEFAULTS, InvalidTokenError } from '@edge-mcp/core';
import { SessionLimitError } from '@edge-mcp/core/sessions';
import { CONTROL } from './session-object.ts';
import { type AdmitVerdict, admit, release, report } from './session-registry.ts';
import type { DurableObjectId, DurableObjectNamespace } from './workers-types.ts';

/** The session caps of a session Worker (its `sessionLimits` option). */
export interface SessionLimits {
  /**
   * The `SessionRegistry` namespace, which counts. Give `defineSessionObject` the same one (its
   * `registry`), so an ended session leaves the count at once; otherwise its place is found free
   * only when the cap is reached.
   */
  registry: DurableObjectNamespace;
  /** Sessions of the whole deployment. @default 10000 (`DEFAULTS.maxSessions`) */
  maxSessions?: number;
  /** Sessions of one principal. @default 1000 (`DEFAULTS.maxSessionsPerPrincipal`) */
  maxSessionsPerPrincipal?: number;
}

/** The limits with their defaults filled in. */
export type SessionCaps = Required<SessionLimits>;

export function sessionCaps(limits: SessionLimits | undefined): SessionCaps | undefined {
  if (!limits) return undefined;
  return {
    registry: limits.registry,
    maxSessions: limits.maxSessions ?? DEFAULTS.maxSessions,
    maxSessionsPerPrincipal: limits.maxSessionsPerPrincipal ?? DEFAULTS.maxSessionsPerPrincipal,
  };
}

/**
 * Whom an `initialize` counts against: the principal the Worker's `auth` found, else the client's
 * address (`CF-Connecting-IP`, which Cloudflare sets and a client cannot), else one shared bucket.
 */
export function quotaKey(request: Request, auth: AuthInfo | InvalidTokenError | undefined): string {
  if (auth !== undefined && !(auth instanceof InvalidTokenError)) return `p:${auth.principal}`;
  return `a:${request.headers.get('cf-connecting-ip') ?? ''}`;
}

/** The cap that refused an `initialize`. */
export type Refused = Extract<AdmitVerdict, { admitted: false }>;

/** Admits `object` for `principal`, making room among idle sessions at a cap; the refusal if not. */
export async function admitSession(
  caps: SessionCaps,
  sessions: DurableObjectNamespace,
  object: DurableObjectId,
  principal: string,
): Promise<Refused | undefined> {
  const ask = {
    object: object.toString(),
    principal,
    maxSessions: caps.maxSessions,
    maxSessionsPerPrincipal: caps.maxSessionsPerPrincipal,
  };
  const first = await admit(caps.registry, ask);
  if (first.admitted) return undefined;
  const released = await evictIdle(sessions, first.candidates);
  if (released.length === 0) return first;
  const second = await admit(caps.registry, { ...ask, released });
  return second.admitted ? undefined : second;
}

/**
 * After the object answered the `initialize`: its session is confirmed (listed, and evictable
 * from now on), or, when it opened none (refused, invalid), its place is freed.
 */
export async function settleAdmission(
  caps: SessionCaps,
  object: DurableObjectId,
  session: string | null,
): Promise<void> {
  if (session !== null) return report(caps.registry, 'open', session);
  await release(caps.registry, [object.toString()]).catch(() => undefined);
}

/**
 * The first candidate, oldest first, that holds no session once asked (evicted while idle, or
 * long gone): one place is made for one session, never more.
 */
async function evictIdle(
  sessions: DurableObjectNamespace,
  candidates: string[],
): Promise<string[]> {
  for (const hex of candidates) {
    try {
      const stub = sessions.get(sessions.idFromString(hex));
      const answer = await stub.fetch(new Request(`${CONTROL}/evict`, { method: 'POST' }));
      if (((await answer.json()) as { gone: boolean }).gone) return [hex];
    } catch {
      // Unreachable just now: it keeps its place.
    }
  }
  return [];
}

/** The text the session managers refuse the same cap with (core's `SessionLimitError`). */
export function refusalMessage(refused: Refused): string {
  return new SessionLimitError(refused.limit, 1, refused.scope).message;
}
