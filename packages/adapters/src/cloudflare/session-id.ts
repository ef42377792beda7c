import type { DurableObjectId, DurableObjectNamespace } from './workers-types.ts';

/**
 * A session id, and a task id, is `<the object's 64-hex id>.<a random token>`: the Worker routes
 * by the object id, and the 128-bit token makes the id unguessable whatever the object id is.
 */
const SESSION_ID = /^[0-9a-f]{64}\./;

/** A fresh id naming the object `objectId`: `<objectId>.<32 hex digits of randomness>`. */
export function scopedId(objectId: string): string {
  const token = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
  return `${objectId}.${token}`;
}

/**
 * The id of the object holding `sessionId` (or a task id), or `undefined` when it cannot name
 * one: a malformed id, or 64 hex digits this namespace did not issue (`idFromString` throws for
 * those).
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
