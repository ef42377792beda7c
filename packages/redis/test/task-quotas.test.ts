/**
 * Tasks one principal keeps in Redis (issue 22): at `maxTasksPerPrincipal` the create script
 * deletes the principal's own oldest finished task, never another's, and creates no task while all
 * of its tasks still run; two instances share the count.
 */
import { TaskLimitError, type TaskRecord } from '@edge-mcp/core/tasks';
import { describe, expect, test } from 'vitest';
import { RedisTaskStore } from '../src/task-store.ts';
import { closeAfter, context, namespace, taskRecord, useRedis } from './helpers.ts';

const redis = useRedis();

let order = 0;
/** A running task of `binding`, created a millisecond after the last (the list is by creation). */
function record(runner: string, binding: string): TaskRecord {
  const createdAt = Date.now() + ++order;
  return taskRecord(runner, {
    binding,
    createdAt,
    updatedAt: createdAt,
    expiresAt: createdAt + 60_000,
  });
}

/** Two stores of one namespace (two instances), keeping 3 tasks per principal. */
async function stores(): Promise<[RedisTaskStore, RedisTaskStore]> {
  const ns = namespace();
  const made: RedisTaskStore[] = [];
  for (let i = 0; i < 2; i++) {
    const ctx = await context(redis().url, { namespace: ns, maxTasksPerPrincipal: 3 });
    const store = closeAfter(new RedisTaskStore(ctx));
    store.bind({ expired: () => {}, changed: () => {} });
    made.push(store);
  }
  return made as [RedisTaskStore, RedisTaskStore];
}

async function finished(store: RedisTaskStore, binding: string): Promise<TaskRecord> {
  const task = record(store.runner, binding);
  await store.create(task, 100);
  await store.update(task.id, { status: 'completed', result: { content: [] } });
  return task;
}

describe('tasks per principal on Redis', () => {
  test("a principal's finished tasks make room among its own, across instances, never another's", async () => {
    const [a, b] = await stores();
    const theirs = await finished(a, 'p:victim');
    const flood = [await finished(a, 'p:flood'), await finished(b, 'p:flood')];
    flood.push(await finished(a, 'p:flood'));
    // The fourth, on the other instance: the flood's oldest is deleted.
    await finished(b, 'p:flood');
    expect(await a.get(flood[0]?.id as string)).toBeUndefined();
    expect((await b.get(flood[1]?.id as string))?.status).toBe('completed');
    expect((await b.get(theirs.id))?.status).toBe('completed');
    expect((await a.list('p:flood', undefined, 10)).records).toHaveLength(3);
  });

  test('while all of them run, no new task is created', async () => {
    const [a, b] = await stores();
    for (let i = 0; i < 3; i++) await (i % 2 ? a : b).create(record(a.runner, 'p:busy'), 100);
    await expect(b.create(record(b.runner, 'p:busy'), 100)).rejects.toBeInstanceOf(TaskLimitError);
    // Another principal is not held to it.
    await a.create(record(a.runner, 'p:other'), 100);
  });
});
