import { McpError } from '../errors.ts';
import { ErrorCode } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

/**
 * Signs and verifies the `requestState` of input-required results with HMAC-SHA-256 (Web Crypto).
 *
 * The state carries the answers collected in earlier rounds and the keys of the questions asked,
 * bound to the principal (when requests are authenticated), the method, the target (tool name,
 * prompt name or resource URI), a digest of the arguments, and an expiry. The client echoes it
 * verbatim; anything altered, expired, replayed onto another request or by another principal is
 * rejected, and so are answers to questions the state does not record as asked.
 */
export class RequestStateSigner {
  /** Without a secret, a random key made on first use (not at start-up: see `#cryptoKey`). */
  #raw: Uint8Array<ArrayBuffer> | undefined;
  #key: CryptoKey | undefined;
  readonly #ttlMs: number;
  /** With `singleUse`: the signatures of states accepted, to their expiry (in that order). */
  readonly #used: Map<string, number> | undefined;

  constructor(secret: string | Uint8Array | undefined, ttlMs: number, singleUse = false) {
    this.#raw = (typeof secret === 'string' ? encoder.encode(secret) : secret) as
      | Uint8Array<ArrayBuffer>
      | undefined;
    this.#ttlMs = ttlMs;
    this.#used = singleUse ? new Map() : undefined;
  }

  /**
   * The key is made or imported on first use and kept as a CryptoKey, never as a pending promise:
   * on workerd a promise started while serving one request cannot be awaited by another. Not in
   * the constructor: the first read of the global `crypto` loads Node 20's Web Crypto (~4 ms of a
   * cold start), and workerd refuses random values at a script's top level.
   */
  async #cryptoKey(): Promise<CryptoKey> {
    // Made synchronously: two first calls racing to import must import the same bytes.
    this.#raw ??= crypto.getRandomValues(new Uint8Array(32));
    this.#key ??= await crypto.subtle.importKey(
      'raw',
      this.#raw,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    return this.#key;
  }

  async sign(binding: string, answers: JsonObject, asked: readonly string[]): Promise<string> {
    const payload = encoder.encode(
      JSON.stringify({ b: binding, r: answers, q: asked, x: Date.now() + this.#ttlMs }),
    );
    const signature = new Uint8Array(
      await crypto.subtle.sign('HMAC', await this.#cryptoKey(), payload),
    );
    return `${toBase64Url(payload)}.${toBase64Url(signature)}`;
  }

  /** The answers and the asked keys a valid state carries; throws -32602 for anything else. */
  async verify(state: unknown, binding: string): Promise<VerifiedState> {
    if (typeof state !== 'string') throw invalidState('requestState must be a string');
    const dot = state.indexOf('.');
    const payload = fromBase64Url(state.slice(0, dot));
    const signature = fromBase64Url(state.slice(dot + 1));
    if (dot < 0 || !payload || !signature) throw invalidState('malformed requestState');
    const ok = await crypto.subtle.verify('HMAC', await this.#cryptoKey(), signature, payload);
    if (!ok) throw invalidState('requestState failed verification');
    const decoded = JSON.parse(decoder.decode(payload)) as {
      b: string;
      r: JsonObject;
      q: string[];
      x: number;
    };
    if (decoded.b !== binding) throw invalidState('requestState belongs to another request');
    const now = Date.now();
    if (decoded.x < now) throw invalidState('requestState expired');
    if (this.#used) this.#spend(state.slice(dot + 1), decoded.x, now);
    return { answers: decoded.r, asked: decoded.q };
  }

  /** Single use: a state seen before is refused; the ones past their expiry are forgotten. */
  #spend(signature: string, expiresAt: number, now: number): void {
    const used = this.#used as Map<string, number>;
    if (used.has(signature)) throw invalidState('requestState was used already');
    // Every state lives as long: insertion order is expiry order.
    for (const [seen, expiry] of used) {
      if (expiry >= now && used.size < MAX_USED) break;
      used.delete(seen);
    }
    used.set(signature, expiresAt);
  }
}

/** States remembered at most with `singleUse` (the oldest go first past it). */
const MAX_USED = 100_000;

/** What a verified `requestState` carries. */
export interface VerifiedState {
  /** Answers of earlier rounds. */
  answers: JsonObject;
  /** Keys of every question asked so far. */
  asked: readonly string[];
}

/**
 * A stable digest input for a request: the principal (empty without authentication), method,
 * target and arguments with sorted keys.
 */
export function bindingOf(
  principal: string | undefined,
  method: string,
  target: string,
  args: unknown,
): string {
  return `${principal ?? ''}\u0000${method}\u0000${target}\u0000${stableStringify(args ?? null)}`;
}

/**
 * Levels of nesting the binding follows. Deeper arguments cannot be bound to a state: they are
 * refused with -32602 rather than recursing until the stack overflows (a RangeError that no
 * handler expects, and on some runtimes one thrown again from the code that catches it).
 */
const MAX_BOUND_DEPTH = 512;

function stableStringify(value: unknown, depth = 0): string {
  if (depth > MAX_BOUND_DEPTH)
    throw new McpError(
      ErrorCode.InvalidParams,
      `arguments nest deeper than ${MAX_BOUND_DEPTH} levels, more than an input-required round can carry`,
    );
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++)
      out += `${i === 0 ? '' : ','}${stableStringify(value[i], depth + 1)}`;
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      out += `${i === 0 ? '' : ','}${JSON.stringify(k)}:${stableStringify((value as JsonObject)[k], depth + 1)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function invalidState(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid requestState: ${message}`);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}
