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

/** Takes every write but the handler's end; `refused` is called for each end it fails. */
function failingEnd(refused: () => void): TaskStore {
  const inner = new MemoryTaskStore();
  return {
    exclusive: inner.exclusive,
    bind: (host) => inner.bind(host),
    create: (record) => inner.create(record),
    get: (id) => inner.get(id),
    update: (id, patch) => {
      if (patch.status !== 'completed' && patch.status !== 'failed') return inner.update(id, patch);
      refused();
      return Promise.reject(new StoreUnavailableError('the store is away'));
    },
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
  // Both tasks' end writes were refused (a completed and a failed one).
  let writes = 0;
  let bothRefused!: () => void;
  const refused = new Promise<void>((resolve) => {
    bothRefused = resolve;
  });
  server.tool('quick', { taskSupport: 'required' }, () => 'done');
  server.tool('broken', { taskSupport: 'required' }, () => {
    throw new Error('broken');
  });
  const store = failingEnd(() => {
    if (++writes === 2) bothRefused();
  });
  const handler = createMcpHandler(server, { tasks: { store } });
  for (const name of ['quick', 'broken']) {
    const created = await call(handler, 'tools/call', { name, arguments: {} }, WITH_TASKS);
    expect(created.message.result.resultType).toBe('task');
  }
  await refused;
  // Node reports a rejection nobody handled once the turn that made it has run its microtasks:
  // two turns of the event loop later it has been reported, if it is one (no timed wait).
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(rejections).toEqual([]);
  await handler.close();
});
