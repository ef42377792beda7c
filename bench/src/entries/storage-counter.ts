/**
 * Counts a Durable Object's storage operations through the storage API, for the bench's
 * "storage reads and writes per 1,000 calls": the object's `ctx.storage` methods (and those of its
 * `sql` and `kv` parts) are wrapped on the instance before the object's class sees them, so the
 * library under test runs unchanged and nothing of this reaches a published package. Counters
 * live in the isolate's module scope (wrangler dev runs a script's Worker and its objects in one
 * isolate) and the bench's Worker entry answers them on `/bench/storage`. What counts as a read
 * or a write is what Cloudflare bills a SQLite-backed object for (README.md, Method).
 */

export interface StorageCounts {
  reads: number;
  writes: number;
  rowsRead: number;
  rowsWritten: number;
  /** Calls per method, e.g. `kv.put`, `sql.exec:INSERT`, `setAlarm`. */
  calls: Record<string, number>;
}

const counts: StorageCounts = { reads: 0, writes: 0, rowsRead: 0, rowsWritten: 0, calls: {} };
/** Cursors whose rows are not summed yet (they are final once the caller has read them). */
let cursors: { rowsRead?: number; rowsWritten?: number }[] = [];

const READS = new Set(['get', 'list', 'getAlarm']);
const WRITES = new Set(['put', 'delete', 'deleteAll', 'setAlarm', 'deleteAlarm']);

function tally(name: string, write: boolean): void {
  counts.calls[name] = (counts.calls[name] ?? 0) + 1;
  if (write) counts.writes++;
  else counts.reads++;
}

/** Wraps the methods named in READS / WRITES of `target` (own instance properties). */
function wrapMethods(target: object, prefix: string): void {
  const object = target as Record<string, unknown>;
  for (const name of [...READS, ...WRITES]) {
    const method = object[name];
    if (typeof method !== 'function') continue;
    object[name] = function (this: unknown, ...args: unknown[]) {
      tally(`${prefix}${name}`, WRITES.has(name));
      return method.apply(target, args);
    };
  }
}

/** Patches `storage` (a DurableObjectStorage) in place; safe to call once per object. */
export function countStorage(storage: object): void {
  const s = storage as { sql?: object; kv?: object };
  wrapMethods(storage, '');
  if (s.kv) wrapMethods(s.kv, 'kv.');
  const sql = s.sql as { exec?: (...args: unknown[]) => unknown } | undefined;
  const exec = sql?.exec;
  if (sql && typeof exec === 'function') {
    sql.exec = (...args: unknown[]) => {
      const verb = String(args[0]).trimStart().split(/\s/, 1)[0]!.toUpperCase();
      tally(`sql.exec:${verb}`, verb !== 'SELECT' && verb !== 'PRAGMA');
      const cursor = exec.apply(sql, args) as { rowsRead?: number; rowsWritten?: number };
      cursors.push(cursor);
      return cursor;
    };
  }
}

/** The counts so far (a copy), with the rows of every cursor handed out until now. */
export function storageCounts(): StorageCounts {
  for (const cursor of cursors) {
    counts.rowsRead += cursor.rowsRead ?? 0;
    counts.rowsWritten += cursor.rowsWritten ?? 0;
  }
  cursors = [];
  return { ...counts, calls: { ...counts.calls } };
}
