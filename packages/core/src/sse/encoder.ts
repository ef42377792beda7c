const encoder = new TextEncoder();

/**
 * U+0085 (NEXT LINE), U+2028 and U+2029 are legal raw inside JSON strings, but some SSE clients
 * split lines on them (Python's `str.splitlines()` in older httpx-sse): escaped, the JSON is the
 * same text and every client sees one line.
 */
const HAS_SEPARATOR = /[\u0085\u2028\u2029]/;
const SEPARATORS = /[\u0085\u2028\u2029]/g;

function escapeSeparators(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One SSE event carrying a JSON-RPC message (already serialized: JSON has no raw newlines). */
export function encodeEvent(data: string, id?: string): Uint8Array {
  const line = HAS_SEPARATOR.test(data) ? data.replace(SEPARATORS, escapeSeparators) : data;
  return encoder.encode(
    id === undefined
      ? `event: message\ndata: ${line}\n\n`
      : `id: ${id}\nevent: message\ndata: ${line}\n\n`,
  );
}

/** An SSE comment line; clients ignore it, proxies and runtimes see traffic. */
export const KEEP_ALIVE: Uint8Array = encoder.encode(': keep-alive\n\n');

/** Priming event of 2025-11-25 (id, empty data) with an optional reconnection delay. */
export function encodePriming(id: string, retryMs?: number): Uint8Array {
  return encoder.encode(
    retryMs === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${retryMs}\ndata: \n\n`,
  );
}
