/**
 * MemoryTaskStore's bookkeeping: the unfinished-task count per binding and the per-binding list
 * follow tasks as they are created, end, expire and are evicted.
 */
import { describe, expect, test } from 'vitest';
import { MemoryTaskStore } from '../src/tasks/memory-task-store.ts';
import type { TaskRecord, TaskStatus } from '../src/tasks/store.ts';

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

  test("per principal: one binding's finished tasks make room among its own, never another's", () => {
    const store = new MemoryTaskStore({ maxTasksPerPrincipal: 3, maxTasks: 100 });
    store.bind(host);
    const theirs = task('victim');
    store.create(theirs);
    store.update(theirs.id, { status: 'completed', result: { content: [] } });
    const flood = Array.from({ length: 3 }, () => task('flood'));
    for (const record of flood) {
      store.create(record);
      store.update(record.id, { status: 'completed', result: { content: [] } });
    }
    // The fourth of the flood's evicts the flood's oldest, and the victim's result stays.
    store.create(task('flood'));
    expect(store.get(flood[0]?.id as string)).toBeUndefined();
    expect(store.get(flood[1]?.id as string)).toBeDefined();
    expect(store.get(theirs.id)?.status).toBe('completed');
    // All of a binding's tasks running: no room is made, the new one is refused.
    const busy = new MemoryTaskStore({ maxTasksPerPrincipal: 2 });
    busy.bind(host);
    busy.create(task('flood'));
    busy.create(task('flood'));
    expect(() => busy.create(task('flood'))).toThrow(/Too many tasks/);
    busy.create(task('other'));
  });

  test("per principal: results past a binding's bytes push out its own oldest, never another's", () => {
    const store = new MemoryTaskStore({ maxTaskBytesPerPrincipal: 3000, maxTaskBytes: 1_000_000 });
    store.bind(host);
    const big = { content: [{ type: 'text', text: 'x'.repeat(1000) }] };
    const theirs = task('victim');
    store.create(theirs);
    store.update(theirs.id, { status: 'completed', result: big });
    const flood = Array.from({ length: 3 }, () => task('flood'));
    for (const record of flood) {
      store.create(record);
      store.update(record.id, { status: 'completed', result: big });
    }
    // Three results of about 1,050 characters pass 3,000: the flood's first goes.
    expect(store.get(flood[0]?.id as string)).toBeUndefined();
    expect(store.get(flood[2]?.id as string)?.result).toEqual(big);
    expect(store.get(theirs.id)?.result).toEqual(big);
    expect(store.bytes).toBeLessThanOrEqual(3000 + 1100);
  });
});
