/**
 * Durable tasks on Redis (issue 27 items 1-3): an instance's lease on its tasks is its liveness
 * key. When it lapses, the lease sweep of another instance's heartbeat claims a task whose tool
 * may run again (the next fencing token) and runs it there; the lost runner, told of the claim,
 * stops (`task-lost`) and its late end is refused; a tool that may not run again is answered
 * `failed` (`instance-lost`) without any read; an `input_required` task survives its runner; a
 * front with `run: 'workers'` only queues and a runner claims at once.
 */
import { aborted } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { TASK_FIELDS } from '../src/keys.ts';
import { call, type Node, nodes, poll } from './support/task-nodes.ts';

async function start(node: Node, name: string): Promise<string> {
  const answer = await call(node.handler, 'tools/call', { name, arguments: {} });
  expect(answer.message.result).toMatchObject({ resultType: 'task' });
  return answer.message.result.taskId as string;
}

/** The task's record as Redis holds it. */
async function stored(node: Node, taskId: string) {
  const { keys, connection } = node.context;
  const json = await connection.command(['HGET', keys.task(taskId), TASK_FIELDS.record]);
  return JSON.parse(String(json)) as { runner: string; fence: number; attempts: number };
}

describe('leases on Redis', () => {
  test('a lost runner: the sweep elsewhere claims the task and runs it again; the loser stops (task-lost)', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const onA = a.started();
    const taskId = await start(a, 'again');
    const signal = await onA;
    const onB = b.started();
    // What a frozen process leaves: no heartbeat, the liveness key gone, the handler still on.
    await a.context.instance.stop();
    // No read: B's heartbeat finds it.
    await onB;
    expect(await stored(b, taskId)).toMatchObject({
      runner: b.context.instance.tag,
      fence: 2,
      attempts: 2,
    });
    // A's subscriber heard of the claim: its handler stops without writing.
    expect(await aborted(signal, 2000)).toMatchObject({ type: 'task-lost' });
    a.release();
    expect((await poll(a.handler, taskId, () => true)).status).toBe('working');
    b.release();
    const done = await poll(a.handler, taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe(`again on ${b.context.instance.tag}`);
  });

  test('a late end from the lost runner carries the old fence and is refused', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const onA = a.started();
    const taskId = await start(a, 'again');
    await onA;
    const onB = b.started();
    await a.context.instance.stop();
    await onB;
    // A writes as its handler would, with the fence it held.
    const late = await a.store.update(taskId, { status: 'completed', result: {} }, 1);
    expect(late).toMatchObject({ status: 'working', fence: 2 });
    expect((await poll(b.handler, taskId, () => true)).status).toBe('working');
    b.release();
    expect((await poll(b.handler, taskId, (s) => s === 'completed')).status).toBe('completed');
  });

  test('a tool that may not run again: the sweep answers it failed (instance-lost), no read needed', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const onA = a.started();
    const taskId = await start(a, 'compute');
    await onA;
    await a.context.instance.stop();
    const { keys, connection } = b.context;
    await expect
      .poll(() => connection.command(['HGET', keys.task(taskId), TASK_FIELDS.status]), {
        timeout: 5000,
      })
      .toBe('failed');
    const failed = await poll(b.handler, taskId, () => true);
    expect(failed.error).toMatchObject({ code: -32603, data: { reason: 'instance-lost' } });
  });

  test('input_required survives its runner: answered on another instance, it runs again and completes', async () => {
    const [a, b, c] = (await nodes(3)) as [Node, Node, Node];
    const taskId = await start(a, 'question');
    await poll(c.handler, taskId, (s) => s === 'input_required');
    await a.context.instance.stop();
    await expect
      .poll(async () => (await stored(b, taskId)).runner, { timeout: 5000 })
      .not.toBe(a.context.instance.tag);
    const waiting = await poll(c.handler, taskId, (s) => s === 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
    await call(b.handler, 'tasks/update', {
      taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    const done = await poll(c.handler, taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe('answered Ada');
  });

  test("run: 'workers': the front queues; a runner hears of it on the bus and claims it at once", async () => {
    const [front, worker] = (await nodes(2, {}, [{ run: 'workers' }, {}])) as [Node, Node];
    const onWorker = worker.started();
    const taskId = await start(front, 'again');
    expect(front.handler.stats().tasks).toBe(0);
    await onWorker;
    expect(await stored(front, taskId)).toMatchObject({
      runner: worker.context.instance.tag,
      attempts: 1,
    });
    worker.release();
    const done = await poll(front.handler, taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe(`again on ${worker.context.instance.tag}`);
  });

  test('shutdown lets a task that may run again go; another instance claims it at once', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const onA = a.started();
    const taskId = await start(a, 'again');
    await onA;
    const onB = b.started();
    await a.handler.close();
    await onB;
    expect((await stored(b, taskId)).runner).toBe(b.context.instance.tag);
    b.release();
    const done = await poll(b.handler, taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe(`again on ${b.context.instance.tag}`);
  });
});
