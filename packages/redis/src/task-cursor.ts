import type { TaskRecord } from '@edge-mcp/core/tasks';

/*
 * The cursor of `tasks/list`: the last task of the page (its `createdAt` and id), in digits, with
 * a check of the binding it was made for. Opaque to clients; one that does not decode, or was
 * made for another binding, is `-32602 Invalid cursor`.
 */
const CHECK_DIGITS = 6;
const TIME_DIGITS = 16;

function check(binding: string, body: string): string {
  // FNV-1a, 32 bits.
  let hash = 0x811c9dc5;
  const text = `${binding}\n${body}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return String(hash % 10 ** CHECK_DIGITS).padStart(CHECK_DIGITS, '0');
}

export function encodeCursor(binding: string, last: Pick<TaskRecord, 'createdAt' | 'id'>): string {
  let body = String(last.createdAt).padStart(TIME_DIGITS, '0');
  for (const byte of new TextEncoder().encode(last.id)) body += String(byte).padStart(3, '0');
  return check(binding, body) + body;
}

export function decodeCursor(
  binding: string,
  cursor: string,
): { createdAt: number; id: string } | undefined {
  const head = CHECK_DIGITS + TIME_DIGITS;
  if (!/^\d+$/.test(cursor) || cursor.length <= head || (cursor.length - head) % 3 !== 0)
    return undefined;
  const body = cursor.slice(CHECK_DIGITS);
  if (check(binding, body) !== cursor.slice(0, CHECK_DIGITS)) return undefined;
  const createdAt = Number(body.slice(0, TIME_DIGITS));
  if (!Number.isSafeInteger(createdAt)) return undefined;
  const bytes = new Uint8Array((body.length - TIME_DIGITS) / 3);
  for (let i = 0; i < bytes.length; i++) {
    const byte = Number(body.slice(TIME_DIGITS + 3 * i, TIME_DIGITS + 3 * i + 3));
    if (byte > 255) return undefined;
    bytes[i] = byte;
  }
  try {
    return { createdAt, id: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return undefined;
  }
}
