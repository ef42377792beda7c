import { afterEach, expect, test } from 'vitest';
import { McpServer, serveTasks, type TaskRunEvent } from '../src/index.ts';
import { aborted, call } from './helpers.ts';
import { type Node, poll, startCluster, WITH_TASKS } from './support/cluster-setup.ts';

let running: Node[] = [];
afterEach(async () => {
  await Promise.all(running.map((node) => node.handler.close()));
  running = [];
});

function cluster(...tasks: NonNullable<Parameters<typeof startCluster>[2]>) {
  const started = startCluster(3, {}, tasks);
  running = started.nodes;
  return started;
}

async function start(node: Node, name: string) {
  const answer = await call(node.handler, 'tools/call', { name, arguments: {} }, WITH_TASKS);
  expect(answer.message.result).toMatchObject({ resultType: 'task' });
  return answer.message.result.taskId as string;
}

test('a lost runner: a read elsewhere claims the task, runs it again; the late first end is refused', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'again');
  await onA;
  // A stops beating but its handler goes on (a frozen process that wakes up later).
  world.stopped('ia');
  const onB = b.started();
  expect((await poll(b.handler, taskId, () => true)).status).toBe('working');
  await onB;
  const held = world.tasks.get(taskId);
  expect(held).toMatchObject({ runner: 'ib', fence: 2, attempts: 2 });
  // A's run ends now: its write carries fence 1 and is refused.
  a.release();
  await expect.poll(() => a.handler.stats().tasks).toBe(0);
  expect((await poll(b.handler, taskId, () => true)).status).toBe('working');
  b.release();
  const done = await poll(b.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('again on ib');
});

test('tasks.onRun tells each run: its attempt and fence, and whether its end was written', async () => {
  const runs: TaskRunEvent[] = [];
  const told = { onRun: (event: TaskRunEvent) => runs.push(event) };
  const { world, nodes } = cluster(told, told, told);
  const [a, b] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'again');
  await onA;
  world.stopped('ia');
  const onB = b.started();
  await poll(b.handler, taskId, () => true);
  await onB;
  a.release();
  await expect.poll(() => runs.length).toBe(3);
  b.release();
  await poll(b.handler, taskId, (s) => s === 'completed');
  await expect.poll(() => runs.length).toBe(4);
  const seen = runs.map(({ phase, runner, attempt, fence, outcome }) => ({
    phase,
    runner,
    attempt,
    fence,
    outcome,
  }));
  expect(seen).toEqual([
    { phase: 'start', runner: 'ia', attempt: 1, fence: 1, outcome: undefined },
    { phase: 'start', runner: 'ib', attempt: 2, fence: 2, outcome: undefined },
    { phase: 'end', runner: 'ia', attempt: 1, fence: 1, outcome: 'refused' },
    { phase: 'end', runner: 'ib', attempt: 2, fence: 2, outcome: 'completed' },
  ]);
  expect(runs.every((event) => event.taskId === taskId && event.tool === 'again')).toBe(true);
});

test('the sweep of leases claims a lost task without any read', async () => {
  const { world, nodes } = cluster();
  const [a, b, c] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'again');
  await onA;
  world.stopped('ia');
  const claimed = Promise.race([b.started().then(() => b), c.started().then(() => c)]);
  world.sweepTasks();
  const winner = await claimed;
  // Both heard of it; one claimed it.
  expect(world.tasks.get(taskId)?.fence).toBe(2);
  winner.release();
  const done = await poll(winner.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe(`again on ${world.tasks.get(taskId)?.runner}`);
});

test('a tool that may not run again: the sweep answers it failed (instance-lost)', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'compute');
  await onA;
  world.stopped('ia');
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.status).toBe('failed');
  const failed = await poll(b.handler, taskId, () => true);
  expect(failed.error).toMatchObject({ code: -32603, data: { reason: 'instance-lost' } });
});

test('retry: { attempts: 2 }: run again once after its runner was lost, then failed (instance-lost)', async () => {
  const { world, nodes } = cluster();
  const [a, b, c] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'twice');
  await onA;
  world.stopped('ia');
  const claimed = Promise.race([b.started().then(() => 'ib'), c.started().then(() => 'ic')]);
  world.sweepTasks();
  const second = await claimed;
  expect(world.tasks.get(taskId)).toMatchObject({ runner: second, attempts: 2, maxAttempts: 2 });
  world.stopped(second);
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.status).toBe('failed');
  expect(world.tasks.get(taskId)?.error).toMatchObject({ data: { reason: 'instance-lost' } });
});

test('tasks.maxInputAttempts bounds the runs of a task waiting for input whose runners keep dying', async () => {
  const bounded = { maxInputAttempts: 2 };
  const { world, nodes } = cluster(bounded, bounded, bounded);
  const [a, , c] = nodes;
  const taskId = await start(a, 'question');
  await poll(c.handler, taskId, (s) => s === 'input_required');
  world.stopped('ia');
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.runner).not.toBe('ia');
  const second = world.tasks.get(taskId);
  expect(second).toMatchObject({ attempts: 2 });
  await poll(c.handler, taskId, (s) => s === 'input_required');
  world.stopped(second?.runner as string);
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.status).toBe('failed');
  expect(world.tasks.get(taskId)?.error).toMatchObject({ data: { reason: 'instance-lost' } });
});

test('input given after the runner was lost: another instance runs it again to that input and completes', async () => {
  const { world, nodes } = cluster();
  const [a, b, c] = nodes;
  const taskId = await start(a, 'question');
  await poll(c.handler, taskId, (s) => s === 'input_required');
  world.stopped('ia');
  const ack = await call(
    b.handler,
    'tasks/update',
    { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } },
    WITH_TASKS,
  );
  expect(ack.message.result).toMatchObject({ resultType: 'complete' });
  const done = await poll(c.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('answered Ada');
  expect(world.tasks.get(taskId)).toMatchObject({ runner: 'ib', attempts: 2 });
});

test('answered while its killed runner still looked alive: the sweep runs it again with the answer', async () => {
  const { world, nodes } = cluster();
  const [a, b, c] = nodes;
  const taskId = await start(a, 'question');
  await poll(c.handler, taskId, (s) => s === 'input_required');
  // SIGKILLed: it hears nothing, but its lease has not lapsed, so the answer is only recorded.
  world.deafened('ia');
  await call(
    b.handler,
    'tasks/update',
    { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Lin' } } } },
    WITH_TASKS,
  );
  expect(world.tasks.get(taskId)).toMatchObject({ status: 'working', answered: true });
  world.stopped('ia');
  world.sweepTasks();
  const done = await poll(c.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('answered Lin');
  expect(world.tasks.get(taskId)).toMatchObject({ attempts: 2 });
  expect(world.tasks.get(taskId)?.answered).toBeUndefined();
});

test('a runner that went on with its answer clears the mark: lost after that, it is not run again', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'ask-then-hold');
  await poll(b.handler, taskId, (s) => s === 'input_required');
  await call(
    b.handler,
    'tasks/update',
    { taskId, inputResponses: { go: { action: 'accept', content: {} } } },
    WITH_TASKS,
  );
  await onA;
  expect(world.tasks.get(taskId)?.answered).toBeUndefined();
  world.stopped('ia');
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.status).toBe('failed');
  expect(world.tasks.get(taskId)?.error).toMatchObject({ data: { reason: 'instance-lost' } });
});

test('input_required survives its runner even unanswered: the new run waits for the same key', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const taskId = await start(a, 'question');
  await poll(b.handler, taskId, (s) => s === 'input_required');
  world.stopped('ia');
  world.sweepTasks();
  await expect.poll(() => world.tasks.get(taskId)?.runner).not.toBe('ia');
  const waiting = await poll(b.handler, taskId, (s) => s === 'input_required');
  expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
  await call(
    b.handler,
    'tasks/update',
    { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Grace' } } } },
    WITH_TASKS,
  );
  const done = await poll(b.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('answered Grace');
});

test('shutdown lets a task that may run again go; one that may not is failed (shutdown)', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const onA = a.started();
  const again = await start(a, 'again');
  const signal = await onA;
  const once = await start(a, 'compute');
  await a.handler.close();
  expect(await aborted(signal, 1000)).toMatchObject({ type: 'shutdown' });
  world.stopped('ia');
  expect(world.tasks.get(again)).toMatchObject({ status: 'working', runner: '', fence: 2 });
  expect((await poll(b.handler, once, () => true)).error).toMatchObject({
    data: { reason: 'shutdown' },
  });
  const onB = b.started();
  await poll(b.handler, again, () => true);
  await onB;
  b.release();
  const done = await poll(b.handler, again, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('again on ib');
});

test("run: 'workers': the front answers the task at once and runs nothing; a runner claims it", async () => {
  const { world, nodes } = cluster({ run: 'workers' }, { run: 'workers' });
  const [front, other, worker] = nodes;
  const onWorker = worker.started();
  const taskId = await start(front, 'again');
  expect(world.tasks.get(taskId)).toMatchObject({ runner: '', attempts: 0 });
  expect(front.handler.stats().tasks).toBe(0);
  // Another front reading it leaves it queued: it runs no tasks.
  expect((await poll(other.handler, taskId, () => true)).status).toBe('working');
  expect(world.tasks.get(taskId)?.runner).toBe('');
  world.sweepTasks();
  await onWorker;
  worker.release();
  const done = await poll(front.handler, taskId, (s) => s === 'completed');
  expect(done.result.content[0].text).toBe('again on ic');
  expect(world.tasks.get(taskId)).toMatchObject({ runner: 'ic', attempts: 1 });
});

test('a runner told its task was claimed elsewhere stops it (task-lost) without writing', async () => {
  const { world, nodes } = cluster();
  const [a, b] = nodes;
  const onA = a.started();
  const taskId = await start(a, 'again');
  const signal = await onA;
  world.stopped('ia');
  const onB = b.started();
  await poll(b.handler, taskId, () => true);
  await onB;
  // A is back (it heard nothing while away); the next notice of the task reaches it.
  world.revived('ia');
  world.taskChanged('ib', taskId);
  expect(await aborted(signal, 1000)).toMatchObject({ type: 'task-lost' });
  await expect.poll(() => a.handler.stats().tasks).toBe(0);
  b.release();
  expect((await poll(b.handler, taskId, (s) => s === 'completed')).status).toBe('completed');
});

test('serveTasks: a worker with no HTTP runs what the fronts queue, and lets it go when it closes', async () => {
  const { world, nodes } = cluster({ run: 'workers' }, { run: 'workers' }, { run: 'workers' });
  const [front, other] = nodes;
  const released: Array<() => void> = [];
  const s = new McpServer({ name: 'worker', version: '1.0.0' });
  const ran: string[] = [];
  s.tool('again', { taskSupport: 'required', annotations: { idempotentHint: true } }, async () => {
    ran.push('worker');
    await new Promise<void>((resolve) => released.push(resolve));
    return 'again on the worker';
  });
  const stop = new AbortController();
  const worker = serveTasks(s, {
    store: world.instance('iw').options.tasks.store,
    signal: stop.signal,
  });
  const taskId = await start(front, 'again');
  world.sweepTasks();
  await expect.poll(() => worker.running).toBe(1);
  expect(world.tasks.get(taskId)).toMatchObject({ runner: 'iw', attempts: 1 });
  for (const go of released.splice(0)) go();
  const done = await poll(other.handler, taskId, (status) => status === 'completed');
  expect(done.result.content[0].text).toBe('again on the worker');
  // A second one, let go when the worker stops (its signal): queued again, not failed.
  const second = await start(front, 'again');
  world.sweepTasks();
  await expect.poll(() => worker.running).toBe(1);
  stop.abort();
  await expect.poll(() => world.tasks.get(second)?.runner).toBe('');
  // Queued with fence 1, claimed with 2, let go with 3.
  expect(world.tasks.get(second)).toMatchObject({ status: 'working', fence: 3 });
  expect(ran).toEqual(['worker', 'worker']);
});
