/**
 * The registry of Lua scripts (every multi-key operation is one script). Each part
 * of the package defines its scripts in its own `scripts/*.ts` module with `defineScript`; the
 * connection loads every registered script when it connects and again after each reconnection
 * (`SCRIPT LOAD`), and runs them with `EVALSHA`, falling back to `EVAL` on `NOSCRIPT` (a Redis
 * restarted or `SCRIPT FLUSH`ed in between).
 */
import { createHash } from 'node:crypto';

export interface RedisScript {
  /** Unique within the package (`touch`, `create`, `publish-or-inbox`, …). */
  readonly name: string;
  /** How many of its arguments are keys (`KEYS[1..n]`), `-1` for any number; the rest are `ARGV`. */
  readonly keys: number;
  readonly lua: string;
  /** SHA-1 of `lua`, hex: what `EVALSHA` names. */
  readonly sha: string;
}

const registry = new Map<string, RedisScript>();

/** Registers a script under a unique name and returns it (defined once, at module load). */
export function defineScript(name: string, keys: number, lua: string): RedisScript {
  const existing = registry.get(name);
  if (existing) {
    if (existing.lua === lua && existing.keys === keys) return existing;
    throw new Error(`Redis script ${name} is defined twice`);
  }
  if (!Number.isInteger(keys) || keys < -1)
    throw new TypeError(`Redis script ${name}: keys must be an integer >= 0, or -1 for any`);
  const script: RedisScript = Object.freeze({
    name,
    keys,
    lua,
    sha: createHash('sha1').update(lua).digest('hex'),
  });
  registry.set(name, script);
  return script;
}

/** Every script defined so far, in definition order. */
export function registeredScripts(): readonly RedisScript[] {
  return [...registry.values()];
}
