const encoder = new TextEncoder();

/** One SSE event carrying a JSON-RPC message (already serialized: JSON has no raw newlines). */
export function encodeEvent(data: string, id?: string): Uint8Array {
  return encoder.encode(
    id === undefined
      ? `event: message\ndata: ${data}\n\n`
      : `id: ${id}\nevent: message\ndata: ${data}\n\n`,
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
