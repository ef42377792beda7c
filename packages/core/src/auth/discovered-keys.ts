/**
 * The key set of a `jwtVerifier`: the one named by `jwksUrl`, or the one the issuer's metadata
 * names, discovered on the first verification and kept.
 *
 * @module
 */
import { discoverJwksUrl } from './issuer-metadata.ts';
import { type GetKey, type KeySetOptions, remoteKeySet } from './remote-key-set.ts';

/** A failed discovery, answered at once until `until`. */
interface FailedDiscovery {
  readonly until: number;
  readonly pauseMs: number;
  readonly error: unknown;
}

export class DiscoveredKeys {
  readonly #issuer: string;
  readonly #keySet: KeySetOptions;
  readonly #now: () => number;
  #keys: GetKey | undefined;
  #discovery: Promise<URL> | undefined;
  #failed: FailedDiscovery | undefined;

  constructor(
    issuer: string,
    keySet: KeySetOptions,
    jwksUrl: string | URL | undefined,
    now: () => number,
  ) {
    this.#issuer = issuer;
    this.#keySet = keySet;
    this.#now = now;
    if (jwksUrl !== undefined) this.#keys = remoteKeySet(new URL(jwksUrl), keySet);
  }

  /** The key set, discovering it first when no `jwksUrl` was given. */
  get(): GetKey | Promise<GetKey> {
    return this.#keys ?? this.#discover();
  }

  async #discover(): Promise<GetKey> {
    // A discovery that failed is not tried again at once: while the authorization server is down
    // every request would otherwise wait for it (up to timeoutMs per metadata URL). The pause
    // doubles from 1 s up to the key set's cooldown; within it the failure answers at once.
    const failed = this.#failed;
    if (failed !== undefined && this.#now() < failed.until) throw failed.error;
    const keySet = this.#keySet;
    // One discovery at a time (not shared on Workers: a promise must not cross requests there).
    const pending =
      this.#discovery ?? discoverJwksUrl(this.#issuer, keySet.fetch ?? fetch, keySet.timeoutMs);
    if (!onWorkers()) this.#discovery = pending;
    try {
      const url = await pending;
      this.#failed = undefined;
      this.#keys ??= remoteKeySet(url, keySet);
      return this.#keys;
    } catch (error) {
      const pauseMs = Math.min(keySet.cooldownMs, Math.max(1000, (failed?.pauseMs ?? 0) * 2));
      this.#failed = { until: this.#now() + pauseMs, pauseMs, error };
      throw error;
    } finally {
      if (this.#discovery === pending) this.#discovery = undefined;
    }
  }
}

function onWorkers(): boolean {
  return typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers';
}
