/**
 * How the package builds its node-redis clients, and the checks made before
 * and right after connecting. Kept apart from the connection so a test can assert the settings.
 */

/** Redis 6.2: exclusive `XRANGE` bounds, `ZADD … GT`, `LPOP key count`. */
export const MINIMUM_REDIS_VERSION = [6, 2] as const;

/** The settings given to node-redis's `createClient` (both connections). */
export interface ClientConfig {
  url: string;
  name?: string;
  /** A command while disconnected fails at once instead of waiting for the reconnection. */
  disableOfflineQueue: true;
  /** Keeps an idle connection alive under `socketTimeout`: `socketTimeoutMs / 5`. */
  pingInterval: number;
  commandOptions: {
    /**
     * node-redis's per-command timeout off (its default of 5 s allocates an `AbortSignal.timeout`
     * per command and only covers commands not yet written; `socketTimeout` covers the rest).
     */
    timeout: 0;
    /** RESP2 replies as they are: `HGETALL` and `CONFIG GET` as flat arrays, not objects. */
    typeMapping: Record<number, unknown>;
  };
  socket: {
    connectTimeout: number;
    /** A Redis that stops answering is noticed within it (the connection is rebuilt). */
    socketTimeout: number;
    /** No retry before the first connection (a clear error at start), backoff after it. */
    reconnectStrategy: (retries: number) => number | false;
  };
}

export interface ClientTimeouts {
  connectTimeoutMs: number;
  socketTimeoutMs: number;
}

/** The backoff between reconnection attempts: 50 ms doubling, at most 2 s. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2000);
}

/**
 * The client settings. `established` says whether the first connection succeeded: until then a
 * failure is final (`connect()` rejects), after it the client reconnects for ever.
 */
export function clientConfig(
  url: string,
  timeouts: ClientTimeouts,
  established: () => boolean,
  mapArrays: Record<number, unknown>,
  name?: string,
): ClientConfig {
  return {
    url,
    ...(name === undefined ? {} : { name }),
    disableOfflineQueue: true,
    pingInterval: Math.max(1, Math.floor(timeouts.socketTimeoutMs / 5)),
    commandOptions: { timeout: 0, typeMapping: mapArrays },
    socket: {
      connectTimeout: timeouts.connectTimeoutMs,
      socketTimeout: timeouts.socketTimeoutMs,
      reconnectStrategy: (retries) => (established() ? reconnectDelay(retries) : false),
    },
  };
}

/** The URL as it may be printed: a password is replaced by `***`. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid Redis URL)';
  }
}

/** The environment variables node-redis 6.3 reads while it connects. */
export const DENO_ENV_VARIABLES = ['REDIS_DEBUG_MAINTENANCE', 'REDIS_EMIT_DIAGNOSTICS'] as const;

interface DenoPermissions {
  permissions: {
    querySync(descriptor: { name: 'env'; variable: string }): { state: string };
  };
}

/**
 * On Deno, node-redis reads `REDIS_DEBUG_MAINTENANCE` and `REDIS_EMIT_DIAGNOSTICS` inside its
 * handshake: without env access to both, Deno refuses the read there and the connection never
 * becomes ready. Throws an error naming the `--allow-env` entries instead. Elsewhere, nothing.
 */
export function checkDenoPermissions(
  deno: DenoPermissions | undefined = (globalThis as { Deno?: DenoPermissions }).Deno,
): void {
  if (typeof deno?.permissions?.querySync !== 'function') return;
  const missing = DENO_ENV_VARIABLES.filter(
    (variable) => deno.permissions.querySync({ name: 'env', variable }).state !== 'granted',
  );
  if (missing.length === 0) return;
  throw new Error(
    `@edge-mcp/redis on Deno needs env access to ${missing.join(' and ')} (node-redis reads ` +
      `them while connecting and never connects without them): add ` +
      `--allow-env=${DENO_ENV_VARIABLES.join(',')} to your other --allow-env names`,
  );
}

/** `redis_version` from `INFO server`, e.g. `7.0.15`. */
export function redisVersion(info: string): string | undefined {
  return /^redis_version:(\S+)/m.exec(info)?.[1];
}

/** Whether `version` (`7.0.15`) is at least `minimum` (`[6, 2]`). */
export function versionAtLeast(
  version: string,
  minimum: readonly number[] = MINIMUM_REDIS_VERSION,
): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10));
  for (let i = 0; i < minimum.length; i++) {
    const have = parts[i] ?? 0;
    const need = minimum[i] as number;
    if (Number.isNaN(have) || have < need) return false;
    if (have > need) return true;
  }
  return true;
}

/** A warning when Redis may evict keys (sessions would vanish), from `CONFIG GET`'s reply. */
export function evictionWarning(policy: string | undefined): Error | undefined {
  if (policy === undefined || policy === 'noeviction') return undefined;
  return new Error(
    `Redis maxmemory-policy is ${policy}: under memory pressure Redis deletes keys, and with ` +
      'them sessions, events and tasks; set maxmemory-policy noeviction',
  );
}
