import { HEADER, META, MODERN_VERSION } from './constants.ts';
import { isObject } from './jsonrpc.ts';

/**
 * Which protocol era a message belongs to. `modern` is 2026-07-28 (stateless, `_meta` on every
 * request); `legacy` is 2025-03-26 / 06-18 / 11-25 (initialize and sessions).
 */
export type Era = 'modern' | 'legacy';

/** What the era decision reads of a request: its headers. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * The one era rule, for the endpoint and for adapters that route before the core sees a request
 * (the Cloudflare session Worker): a message is modern when its `params._meta` names a protocol
 * version, or, having forgotten `_meta`, when the `MCP-Protocol-Version` header says 2026-07-28.
 * Everything else is legacy. `message` is the parsed body (or one element of a batch); pass
 * `undefined` when the body has not been read (GET, DELETE), and the header decides.
 */
export function classifyEra(headers: HeaderSource, message?: unknown): Era {
  if (modernHeader(headers)) return 'modern';
  if (!isObject(message) || !isObject(message.params)) return 'legacy';
  const meta = message.params._meta;
  return isObject(meta) && META.protocolVersion in meta ? 'modern' : 'legacy';
}

/** Whether the `MCP-Protocol-Version` header names 2026-07-28. */
export function modernHeader(headers: HeaderSource): boolean {
  return headers.get(HEADER.protocolVersion)?.trim() === MODERN_VERSION;
}
