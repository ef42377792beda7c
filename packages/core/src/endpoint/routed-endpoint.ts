/**
 * What routing reads of the handler: the endpoint both eras read, and what only routing needs.
 *
 * @module
 */
import type { AuthInfo } from '../auth/auth-info.ts';
import type { InvalidTokenError } from '../errors.ts';
import type { CorsPolicy } from '../http/cors.ts';
import type { AcceptCheck, HostPolicy } from '../http/guards.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { LegacyEndpoint } from '../legacy/endpoint.ts';
import type { InFlightLoad } from '../lifecycle/in-flight-load.ts';
import type { ModernEndpoint } from '../modern/endpoint.ts';
import type { RequestAccounting } from './request-accounting.ts';

/**
 * What an integration in front of the handler says of a request's principal: who it is, that its
 * token was rejected (answered 401 with that reason), or nothing (the handler authenticates).
 */
export type Given = AuthInfo | InvalidTokenError | undefined;

/**
 * The legacy era's module (endpoint/legacy-era.ts), as the handler hands it to routing once it
 * is loaded. Named here, not in that module: a module that names its own type through
 * `import()` imports itself.
 */
export type LegacyEra = typeof import('./legacy-era.ts');

/** What routing reads of the endpoint, besides what the two eras read. */
export interface RoutedEndpoint extends ModernEndpoint, LegacyEndpoint {
  readonly policy: HostPolicy;
  /** The `Accept` check, with the last verdict it gave. */
  readonly accept: AcceptCheck;
  /** Browser origins allowed to call (the `cors` option). */
  readonly cors: CorsPolicy | undefined;
  /** The endpoint's path; `undefined` serves every path. */
  readonly path: string | undefined;
  readonly maxBodyBytes: number;
  readonly legacyEnabled: boolean;
  /** What the requests running hold (`limits.maxInFlightBytes`, `maxInFlightPerPrincipal`). */
  readonly load: InFlightLoad;
  /** The `rateLimit` option's buckets, when there are any. */
  readonly rateLimiter: RateLimiter | undefined;
  /** Runs the requests the eras prepared, counts them in flight and reports every request. */
  readonly requests: RequestAccounting;
  /** `close()` was called: no new work is taken (a grace may let work in flight finish). */
  readonly draining: boolean;
  /** The legacy era's code, loaded (and the sessions wired) on the first legacy request. */
  legacyEra(): LegacyEra | Promise<LegacyEra>;
}
