/**
 * The refusals of budgets and limits a request meets on its way in: rate limits, requests and
 * bytes in flight, the methods served, storage that cannot be reached.
 *
 * @module
 */

import { StoreUnavailableError } from '../errors.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import {
  methodNotAllowed,
  overBudget,
  type Reply,
  refuse,
  refused,
  storageUnavailable,
} from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { ErrorCode, HEADER } from '../protocol/constants.ts';
import type { JsonRpcRequest, RequestId } from '../protocol/jsonrpc.ts';
import type { RoutedEndpoint } from './routed-endpoint.ts';

/**
 * The 429 of a request over a rate limit, or `undefined` when it may run. Synchronous with a
 * store that answers at once (memory): no promise, no microtask hop per request.
 */
export function rateLimited(
  limiter: RateLimiter,
  rpc: JsonRpcRequest,
  principal: string,
): Reply | undefined | Promise<Reply | undefined> {
  const name = rpc.method === 'tools/call' ? rpc.params?.name : undefined;
  let wait: number | Promise<number>;
  try {
    wait = limiter.take(principal, typeof name === 'string' ? name : undefined, Date.now());
  } catch (error) {
    return unavailable(error, rpc.id);
  }
  if (wait instanceof Promise)
    return wait.then(
      (ms) => overRate(ms, rpc),
      (error: unknown) => unavailable(error, rpc.id),
    );
  return overRate(wait, rpc);
}

/**
 * The 429 of a request whose principal (or the whole handler) is out of tokens already, before
 * its body is read; `undefined` when it may go on to be read (`rateLimited` then decides).
 */
export function rateLimitedEarly(limiter: RateLimiter, principal: string): Reply | undefined {
  return overRate(limiter.early(principal, Date.now()), undefined);
}

function overRate(wait: number, rpc: JsonRpcRequest | undefined): Reply | undefined {
  if (wait <= 0) return undefined;
  return refuse(
    'rate-limited',
    429,
    ErrorCode.ServerError,
    'Rate limit exceeded; retry later',
    rpc?.id,
    { retryAfterMs: wait },
    { [HEADER.retryAfter]: String(Math.ceil(wait / 1000)) },
  );
}

/** A principal with `limits.maxInFlightPerPrincipal` requests running: 429. */
export function busyPrincipal(core: RoutedEndpoint): Reply {
  core.streams.counters.rejected++;
  return refused(
    overBudget(
      429,
      `This client has ${core.limits.maxInFlightPerPrincipal} requests in flight already`,
    ),
    'principal-in-flight',
  );
}

/** A body the in-flight byte budget cannot take: 503 for the handler's, 429 for the principal's. */
export function overBytes(core: RoutedEndpoint, held: RequestLoad): Reply {
  core.streams.counters.rejected++;
  return held.refused === 'principal'
    ? refused(
        overBudget(429, 'This client has too many request bytes in flight; retry later'),
        'principal-in-flight-bytes',
      )
    : refused(
        overBudget(503, 'The server has too many request bytes in flight; retry later'),
        'in-flight-bytes',
      );
}

export function notAllowed(core: RoutedEndpoint): Reply {
  return refused(methodNotAllowed(core.allow), 'method-not-allowed');
}

/** Session storage that cannot be reached is a 503 with Retry-After; anything else is thrown on. */
export function unavailable(error: unknown, id: RequestId | undefined): Reply {
  if (error instanceof StoreUnavailableError)
    return refused(storageUnavailable(error.retryAfterSeconds, id), 'storage-unavailable');
  throw error;
}
