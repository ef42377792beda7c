/**
 * Tasks across instances (issue 15): a task runs on the instance that created it;
 * `tasks/cancel` and `tasks/update` landing on another reach it through the store
 * (`TaskHost.changed`), and a task whose runner is gone is answered `failed`.
 */
import {
  legacyGetRequest,
  legacyRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { afterEach, expect, test } from 'vitest';
import { aborted, call } from './helpers.ts';
import { type Node, poll, startCluster, WITH_TASKS } from './support/cluster-setup.ts';

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

test('tasks/cancel on B aborts the task running on A (task-cancelled); C sees it cancelled', async () => {
  const { nodes } = startCluster();
  running = nodes;
  const [a, b, c] = nodes;
  const started = a.started();
  const created = (
    await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }, WITH_TASKS)
  ).message.result;
  expect(created.resultType).toBe('task');
  const signal = await started;
  const ack = await call(b.handler, 'tasks/cancel', { taskId: created.taskId }, WITH_TASKS);
  expect(ack.message.result).toMatchObject({ resultType: 'complete' });
  expect(await aborted(signal, 1000)).toMatchObject({ type: 'task-cancelled' });
  expect((await poll(c.handler, created.taskId, () => true)).status).toBe('cancelled');
  await expect.poll(() => a.handler.stats().tasks).toBe(0);
});

test('tasks/update on B answers the input the task on A waits for; C gets the result', async () => {
  const { nodes } = startCluster();
  running = nodes;
  const [a, b, c] = nodes;
  const created = (
    await call(a.handler, 'tools/call', { name: 'question', arguments: {} }, WITH_TASKS)
  ).message.result;
  const waiting = await poll(c.handler, created.taskId, (s) => s === 'input_required');
  expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
  const ack = await call(
    b.handler,
    'tasks/update',
    {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    },
    WITH_TASKS,
  );
  expect(ack.message.result).toMatchObject({ resultType: 'complete' });
  const done = await poll(c.handler, created.taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('answered Ada');
});

test('a task whose runner is gone (killed, nothing recorded) and whose tool may not run again is answered failed (instance-lost) elsewhere', async () => {
  const { world, nodes } = startCluster();
  running = nodes;
  const [a, b] = nodes;
  const started = a.started();
  const created = (
    await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }, WITH_TASKS)
  ).message.result;
  await started;
  // While A lives, B sees its task working.
  expect((await poll(b.handler, created.taskId, () => true)).status).toBe('working');
  world.stopped('ia');
  const failed = await poll(b.handler, created.taskId, () => true);
  expect(failed.status).toBe('failed');
  expect(failed.error).toMatchObject({ data: { reason: 'instance-lost' } });
});

test('2025-11-25: task status notifications go out on the GET stream of the session, from its home', async () => {
  const { nodes } = startCluster();
  running = nodes;
  const [a, b] = nodes;
  const session = await openSession(a.handler, '2025-11-25');
  const get = new SseReader(
    await b.handler.fetch(legacyGetRequest(session, undefined, { version: '2025-11-25' })),
  );
  await get.next();
  const answer = await readAnswer(
    await a.handler.fetch(
      legacyRequest('tools/call', { name: 'compute', arguments: {}, task: {} }, session, {
        version: '2025-11-25',
      }),
    ),
  );
  const taskId = answer.message.result.task.taskId as string;
  const cancel = await readAnswer(
    await a.handler.fetch(
      legacyRequest('tasks/cancel', { taskId }, session, { version: '2025-11-25' }),
    ),
  );
  expect(cancel.message.result.status).toBe('cancelled');
  const status = await get.until(
    (m) => m.method === 'notifications/tasks/status' && m.params.status === 'cancelled',
  );
  expect(status.params.taskId).toBe(taskId);
  await get.cancel();
});

test('a task store that cannot be reached mid-request gives 503 with Retry-After', async () => {
  const { world, nodes } = startCluster();
  running = nodes;
  const [a] = nodes;
  world.down = true;
  const answer = await call(
    a.handler,
    'tools/call',
    { name: 'compute', arguments: {} },
    WITH_TASKS,
  );
  expect(answer.status).toBe(503);
  expect(answer.message.error).toMatchObject({
    code: -32000,
    message: 'Session storage is unavailable',
  });
  world.down = false;
  expect(a.signals).toHaveLength(0);
});
