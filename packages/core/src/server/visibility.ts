/**
 * Who sees a registration (`visibleTo`): lists scoped to the caller. A registration a caller does
 * not see is left out of its lists and, to that caller, does not exist: a call, get, read or
 * completion of it is answered as one of an unknown name, never with a 403 that would tell it is
 * there. (`scopes` is the other rule: seen by all, used only with the scopes, 403 otherwise.)
 *
 * @module
 */
import type { AuthInfo } from '../auth/auth-info.ts';

/**
 * The scopes a caller's token must grant to see it, or a predicate of the caller's `AuthInfo`
 * (`undefined` for a request without authorization). A predicate that throws hides it.
 */
export type VisibleTo = readonly string[] | ((auth: AuthInfo | undefined) => boolean);

/** A compiled `visibleTo`: whether the caller sees the entry. */
export type Visibility = (auth: AuthInfo | undefined) => boolean;

/** What every registry entry carries: `undefined` when everyone sees it. */
export interface Visible {
  readonly visible: Visibility | undefined;
}

/** Compiles a registration's `visibleTo` (checked once, at registration). */
export function visibilityOf(
  visibleTo: VisibleTo | undefined,
  what: string,
): Visibility | undefined {
  if (visibleTo === undefined) return undefined;
  if (typeof visibleTo === 'function') return visibleTo;
  if (!Array.isArray(visibleTo) || !visibleTo.every((scope) => typeof scope === 'string')) {
    throw new TypeError(
      `${what}: visibleTo must be a list of scopes or a function of the caller's AuthInfo`,
    );
  }
  const scopes: readonly string[] = [...visibleTo];
  // Without a principal there are no scopes: an anonymous caller sees none of it.
  return (auth) => auth !== undefined && scopes.every((scope) => auth.scopes.includes(scope));
}

/** Whether `auth` sees what `visible` guards (fails closed: a throwing predicate hides it). */
export function sees(visible: Visibility | undefined, auth: AuthInfo | undefined): boolean {
  if (visible === undefined) return true;
  try {
    return visible(auth) === true;
  } catch {
    return false;
  }
}
