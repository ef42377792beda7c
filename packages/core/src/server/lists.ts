import { invalidParams } from '../errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ListName, Registry, Scoped } from './registry.ts';

/** One page of a list method's result, `{ [field]: items, nextCursor? }`. */
export function listResult(
  registry: Registry,
  kind: ListName,
  field: string,
  cursor: unknown,
  pageSize: number,
  admits?: (entry: Scoped) => boolean,
): JsonObject {
  const { items, nextCursor } = listPage(registry.list(kind, admits), cursor, pageSize);
  return nextCursor === undefined ? { [field]: items } : { [field]: items, nextCursor };
}

/** One page of a list; cursors are offsets, opaque to clients. */
export function listPage<T>(
  items: T[],
  cursor: unknown,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined && cursor !== '') {
    offset = typeof cursor === 'string' && /^\d+$/.test(cursor) ? Number(cursor) : -1;
    if (offset < 0 || offset > items.length) throw invalidParams('Invalid cursor');
  }
  const end = offset + pageSize;
  if (offset === 0 && end >= items.length) return { items };
  return end < items.length
    ? { items: items.slice(offset, end), nextCursor: String(end) }
    : { items: items.slice(offset) };
}

/** Whether the server advertises the feature a method belongs to (else: method not found). */
export function advertises(registry: Registry, method: string): boolean {
  if (method.startsWith('skills/') || method === 'resources/directory/read')
    return registry.skills.size > 0;
  const caps = registry.capabilities();
  const feature = method.slice(0, method.indexOf('/'));
  if (feature === 'tools' || feature === 'resources' || feature === 'prompts')
    return feature in caps;
  if (feature === 'completion') return 'completions' in caps;
  return true;
}
