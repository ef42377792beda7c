/**
 * Durable tasks as users run them (issue 27's "Done when"): two `pnpm start` instances on one
 * redis-server; `long_job` started on the first, the first SIGKILLed: `tasks/get` on the second
 * shows the task running again, then completed. `ask_job` answered after its instance was
 * killed and started again completes. With `MCP_TASKS_RUN=workers` the HTTP instance only
 * queues, `pnpm start:worker` runs the task, and a worker that stops hands it to another.
 */
import { modern, pollTask, readAnswer, until } from '@edge-mcp/test-kit';
import { type RedisServer, startRedis } from '@edge-mcp/test-kit/node';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { killStartedApps, SERVER, type StartedApp, startApp } from '../src/app-process.ts';

afterEach(killStartedApps);

const CLIENT = {
  capabilities: {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    elicitation: { form: {} },
  },
};

async function call(app: StartedApp, method: string, params: Record<string, unknown>) {
  return readAnswer(await fetch(`${app.url}/mcp`, modern(method, params, CLIENT)));
}

async function startTask(app: StartedApp, name: string, args: Record<string, unknown>) {
  const answer = await call(app, 'tools/call', { name, arguments: args });
  expect(answer.message.result, JSON.stringify(answer.message)).toMatchObject({
    resultType: 'task',
  });
  return answer.message.result.taskId as string;
}

const poll = (app: StartedApp, taskId: string, done: (status: string) => boolean, what: string) =>
  pollTask(() => call(app, 'tasks/get', { taskId }), done, what, 30_000);

/** SIGKILL to the app's whole group: nothing of it writes anything any more. */
function kill(app: StartedApp): Promise<unknown> {
  process.kill(-(app.pnpm.pid as number), 'SIGKILL');
  return app.exited;
}

describe('durable tasks on Redis, through pnpm start', () => {
  let redis: RedisServer | undefined;
  afterAll(async () => {
    await redis?.stop();
  });

  test('long_job outlives a SIGKILLed instance; ask_job answered after its instance restarted completes', async () => {
    redis = await startRedis();
    // Short heartbeats: a lost runner's lease lapses within a second.
    const env = {
      REDIS_URL: redis.url,
      REDIS_NAMESPACE: 'durable-tasks',
      REDIS_HEARTBEAT_MS: '300',
    };
    const [first, second] = (await Promise.all([
      startApp(SERVER, 'start', env),
      startApp(SERVER, 'start', env),
    ])) as [StartedApp, StartedApp];
    const long = await startTask(first, 'long_job', { ms: 3000 });
    const running = await poll(second, long, (s) => s === 'working', 'long_job working');
    expect(running.statusMessage).toBeUndefined();
    await kill(first);
    // No read needed: the second instance's lease sweep claims it and starts it again.
    const again = await until(
      async () => {
        const task = (await call(second, 'tasks/get', { taskId: long })).message.result;
        return task?.statusMessage !== undefined && task;
      },
      'long_job to run again',
      30_000,
      50,
    );
    expect(again.status).toMatch(/working|completed/);
    expect(again.statusMessage).toMatch(/^Running again \(attempt 2\)/);
    const done = await poll(second, long, (s) => s === 'completed', 'long_job to complete');
    expect(done.result.content).toEqual([{ type: 'text', text: 'long job done: 3000 ms of work' }]);

    // ask_job on an instance that is then killed and started again.
    const asking = await startApp(SERVER, 'start', env);
    const ask = await startTask(asking, 'ask_job', { job: 'audit' });
    await poll(asking, ask, (s) => s === 'input_required', 'ask_job to ask');
    await kill(asking);
    const restarted = await startApp(SERVER, 'start', env);
    const waiting = await poll(restarted, ask, (s) => s === 'input_required', 'ask_job waiting');
    expect(Object.keys(waiting.inputRequests)).toEqual(['ending']);
    const ack = await call(restarted, 'tasks/update', {
      taskId: ask,
      inputResponses: { ending: { action: 'accept', content: { ending: 'signed off' } } },
    });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    const answered = await poll(restarted, ask, (s) => s === 'completed', 'ask_job to complete');
    expect(answered.result.content).toEqual([{ type: 'text', text: 'audit finished: signed off' }]);
  });

  test('MCP_TASKS_RUN=workers: the HTTP instance queues, a worker runs it, a stopping worker hands it on', async () => {
    redis ??= await startRedis();
    const env = {
      REDIS_URL: redis.url,
      REDIS_NAMESPACE: 'task-workers',
      REDIS_HEARTBEAT_MS: '300',
    };
    const ready = 'edge-mcp task worker running tasks';
    const [front, worker] = (await Promise.all([
      startApp(SERVER, 'start', { ...env, MCP_TASKS_RUN: 'workers' }),
      startApp(SERVER, 'start:worker', env, ready),
    ])) as [StartedApp, StartedApp];
    const quick = await startTask(front, 'long_job', { ms: 100 });
    const done = await poll(front, quick, (s) => s === 'completed', 'the worker to run it');
    expect(done.result.content).toEqual([{ type: 'text', text: 'long job done: 100 ms of work' }]);
    // A longer one; the worker stops (SIGTERM, a deploy) while it runs, and another takes it.
    const long = await startTask(front, 'long_job', { ms: 2000 });
    const next = await startApp(SERVER, 'start:worker', env, ready);
    process.kill(worker.pnpm.pid as number, 'SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    const handed = await poll(front, long, (s) => s === 'completed', 'the next worker to run it');
    expect(handed.statusMessage).toMatch(/^Running again \(attempt 2\)/);
    expect(worker.output()).toContain('edge-mcp task worker stopping (1 running)');
    expect(next.output()).toContain(ready);
  });
});
