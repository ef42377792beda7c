/**
 * MemoryTaskStore's bookkeeping: the unfinished-task count per binding and the per-binding list
 * follow tasks as they are created, end, expire and are evicted.
 */
import { describe, expect, test } from 'vitest';
import { MemoryTaskStore, type TaskRecord, type TaskStatus } from '../src/tasks/store.ts';

let next = 0;
function task(binding: string, status: TaskStatus = 'working', ttlMs = 60_000): TaskRecord {
  const now = Date.now();
  return {
    id: `t${next++}`,
    binding,
    status,
    createdAt: now,
    updatedAt: now,
    ttlMs,
    pollIntervalMs: 100,
    expiresAt: now + ttlMs,
    tool: 'sleep',
    issuedKeys: [],
    runner: 'r',
  };
}

const host = { expired: () => {} };

describe('MemoryTaskStore', () => {
  test('countActive follows creation, the end of a task, expiry and eviction, per binding', () => {
    const store = new MemoryTaskStore({ maxTasks: 4 });
    store.bind(host);
    const a1 = task('a');
    const a2 = task('a');
    const b1 = task('b');
    for (const record of [a1, a2, b1]) store.create(record);
    expect([store.countActive('a'), store.countActive('b'), store.countActive('c')]).toEqual([
      2, 1, 0,
    ]);
    store.update(a1.id, { status: 'input_required' });
    expect(store.countActive('a')).toBe(2);
    store.update(a1.id, { status: 'completed' });
    expect(store.countActive('a')).toBe(1);
    // A terminal task never changes: a second terminal write counts nothing twice.
    store.update(a1.id, { status: 'failed' });
    expect(store.countActive('a')).toBe(1);
    // Full: the oldest terminal task (a1) is evicted, which was not counted as active.
    store.create(task('a'));
    store.create(task('a'));
    expect(store.get(a1.id)).toBeUndefined();
    expect(store.countActive('a')).toBe(3);
    // An unfinished task that expires is no longer active.
    const short = new MemoryTaskStore();
    short.bind(host);
    const gone = task('a', 'working', -1);
    short.create(gone);
    expect(short.countActive('a')).toBe(1);
    expect(short.get(gone.id)).toBeUndefined();
    expect(short.countActive('a')).toBe(0);
  });

  test('list: one binding’s tasks, newest first, by pages; expired ones leave it', () => {
    const store = new MemoryTaskStore();
    store.bind(host);
    const mine = [task('a'), task('b'), task('a'), task('a')];
    for (const record of mine) store.create(record);
    const first = store.list('a', undefined, 2);
    expect(first.records.map((r) => r.id)).toEqual([mine[3]?.id, mine[2]?.id]);
    const second = store.list('a', first.nextCursor, 2);
    expect(second.records.map((r) => r.id)).toEqual([mine[0]?.id]);
    expect(second.nextCursor).toBeUndefined();
    expect(store.list('b', undefined, 10).records.map((r) => r.id)).toEqual([mine[1]?.id]);
    expect(store.list('nobody', undefined, 10).records).toEqual([]);
  });
});
