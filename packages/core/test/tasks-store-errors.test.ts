/**
 * A remote task store may fail a write (its server is away): the engine must not turn that into
 * an unhandled rejection when a task's handler settles (Node ends the process on one).
 */
import { expect, onTestFinished, test } from 'vitest';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { StoreUnavailableError } from '../src/sessions.ts';
import { MemoryTaskStore, type TaskStore } from '../src/tasks.ts';
import { call } from './helpers.ts';

const WITH_TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** Takes every write but the handler's end. */
function failingEnd(): TaskStore {
  const inner = new MemoryTaskStore();
  return {
    exclusive: inner.exclusive,
    bind: (host) => inner.bind(host),
    create: (record) => inner.create(record),
    get: (id) => inner.get(id),
    update: (id, patch) =>
      patch.status === 'completed' || patch.status === 'failed'
        ? Promise.reject(new StoreUnavailableError('the store is away'))
        : inner.update(id, patch),
    list: (binding, cursor, limit) => inner.list(binding, cursor, limit),
    countActive: (binding) => inner.countActive(binding),
  };
}

test('a store failing the write of a settled task is no unhandled rejection', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  onTestFinished(() => {
    process.off('unhandledRejection', onRejection);
  });
  const server = new McpServer({ name: 'failing-store', version: '1' });
  let finished!: () => void;
  const ended = new Promise<void>((resolve) => {
    finished = resolve;
  });
  server.tool('quick', { taskSupport: 'required' }, () => {
    setTimeout(finished, 20);
    return 'done';
  });
  server.tool('broken', { taskSupport: 'required' }, () => {
    throw new Error('broken');
  });
  const handler = createMcpHandler(server, { tasks: { store: failingEnd() } });
  for (const name of ['quick', 'broken']) {
    const created = await call(handler, 'tools/call', { name, arguments: {} }, WITH_TASKS);
    expect(created.message.result.resultType).toBe('task');
  }
  await ended;
  // An unhandled rejection is reported a macrotask after it happens, with nothing to wait on:
  // the one sleep here gives it the chance to show (the test fails within it when it does).
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(rejections).toEqual([]);
  await handler.close();
});
