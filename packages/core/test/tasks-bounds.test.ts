/**
 * What tasks may make the server hold: a result over `tasks.maxResultBytes` fails its task
 * instead of being kept until the TTL, and the memory store's results and errors stay within
 * `maxTaskBytes` (the oldest finished tasks give way).
 */
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, type McpHandler, McpServer } from '../src/index.ts';
import { MemoryTaskStore, type TaskRecord } from '../src/tasks.ts';
import { call } from './helpers.ts';

const WITH_TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

function handlerWith(options: { maxResultBytes?: number; store?: MemoryTaskStore }): McpHandler {
  const server = new McpServer({ name: 'bounds', version: '1' });
  server.tool(
    'sized',
    { inputSchema: z.object({ size: z.number() }), taskSupport: 'required' },
    ({ size }) => 'x'.repeat(size),
  );
  return createMcpHandler(server, { requestState: { secret: 's' }, tasks: options });
}

/** Starts a task of `sized` and polls it until it is no longer working. */
async function run(handler: McpHandler, size: number) {
  const created = await call(
    handler,
    'tools/call',
    { name: 'sized', arguments: { size } },
    WITH_TASKS,
  );
  const taskId = created.message.result.taskId as string;
  for (;;) {
    const answer = await call(handler, 'tasks/get', { taskId }, WITH_TASKS);
    const result = answer.message.result;
    if (result === undefined || result.status !== 'working')
      return { taskId, answer: answer.message };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('task bounds', () => {
  test('a result over maxResultBytes fails the task (result-too-large); one under it completes', async () => {
    const handler = handlerWith({ maxResultBytes: 2_000 });
    const small = await run(handler, 1_000);
    expect(small.answer.result.status).toBe('completed');
    const big = await run(handler, 5_000);
    expect(big.answer.result.status).toBe('failed');
    expect(big.answer.result.error).toMatchObject({
      code: -32603,
      data: { reason: 'result-too-large', limit: 2_000 },
    });
    expect(big.answer.result.error.data.size).toBeGreaterThan(5_000);
    expect(JSON.stringify(big.answer).length).toBeLessThan(2_000);
    await handler.close();
  });

  test('the memory store keeps results within maxTaskBytes: the oldest finished tasks go', async () => {
    const store = new MemoryTaskStore({ maxTaskBytes: 10_000 });
    const handler = handlerWith({ store });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await run(handler, 3_000)).taskId);
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    expect(store.bytes).toBeGreaterThan(6_000);
    // The newest are still there; the oldest were given up for them.
    const newest = await call(handler, 'tasks/get', { taskId: ids[5] }, WITH_TASKS);
    expect(newest.message.result.status).toBe('completed');
    const oldest = await call(handler, 'tasks/get', { taskId: ids[0] }, WITH_TASKS);
    expect(oldest.message.error?.code).toBe(-32602);
    await handler.close();
  });

  test('expired and evicted tasks give their bytes back', () => {
    const store = new MemoryTaskStore({ maxTaskBytes: 1_000 });
    store.bind({ expired: () => {} });
    const now = Date.now();
    const record = (id: string, ttlMs: number): TaskRecord => ({
      id,
      binding: '',
      status: 'working',
      createdAt: now,
      updatedAt: now,
      ttlMs,
      pollIntervalMs: 100,
      expiresAt: now + ttlMs,
      tool: 'sized',
      issuedKeys: [],
      runner: 'r',
    });
    store.create(record('a', 60_000));
    store.update('a', { status: 'completed', result: { text: 'x'.repeat(600) } });
    const weight = store.bytes;
    expect(weight).toBeGreaterThan(600);
    // Completing b pushes the total over: a, the oldest finished, goes.
    store.create(record('b', 60_000));
    store.update('b', { status: 'failed', error: { code: 1, message: 'y'.repeat(600) } });
    expect(store.get('a')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(1_000);
    store.create(record('c', -1));
    store.update('c', { status: 'completed', result: {} });
    expect(store.get('c')).toBeUndefined(); // expired: forgotten on read
    expect(store.get('b')?.status).toBe('failed');
    expect(store.bytes).toBe(JSON.stringify({ code: 1, message: 'y'.repeat(600) }).length);
  });
});
