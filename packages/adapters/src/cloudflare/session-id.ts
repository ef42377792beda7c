import type { DurableObjectId, DurableObjectNamespace } from './workers-types.ts';

/** A session id is `<the object's 64-hex id>.<a random token>`. */
const SESSION_ID = /^[0-9a-f]{64}\./;

/**
 * The id of the object holding `sessionId`, or `undefined` when it cannot name one: a malformed
 * id, or 64 hex digits this namespace did not issue (`idFromString` throws for those).
 */
export function objectIdOf(
  namespace: DurableObjectNamespace,
  sessionId: string,
): DurableObjectId | undefined {
  if (!SESSION_ID.test(sessionId)) return undefined;
  try {
    return namespace.idFromString(sessionId.slice(0, 64));
  } catch {
    return undefined;
  }
}
