/**
 * 2026-07-28 tasks on workerd (issue 14), through wrangler dev: the session Worker sends a call
 * that may become a task to a new Durable Object, `tasks/*` to the object the task id names, and
 * the object keeps the task (its handler, then its record) after the creating response.
 *
 * What a task's handler does is read from the deployment's log (the `task_sleep` tool reports
 * start, abort and done), never by asking the task's object: a request would keep it awake.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  legacy,
  legacyGet,
  modern,
  openSession,
  readAnswer,
  SseReader,
  until,
} from '@edge-mcp/test-kit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitForLog } from '../src/suite/wait.ts';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { SpawnedTarget } from '../src/targets/spawn.ts';
import type { LogLine, Target } from '../src/targets/types.ts';

const EXTENSION = 'io.modelcontextprotocol/tasks';
const DECLARED = { capabilities: { extensions: { [EXTENSION]: {} } } };
/** Declared, and able to answer elicitation. */
const ASKING = { capabilities: { extensions: { [EXTENSION]: {} }, elicitation: { form: {} } } };

type Headers = Record<string, string>;

/** A 2026-07-28 request; the answer read to its end. */
async function rpc(
  target: Target,
  method: string,
  params: Record<string, unknown>,
  options: { declared?: boolean; headers?: Headers; asks?: boolean } = {},
) {
  const declared = options.declared ?? true;
  const client = options.asks ? ASKING : declared ? DECLARED : {};
  return readAnswer(
    await fetch(target.mcpUrl, modern(method, params, { ...client, headers: options.headers })),
  );
}

/** Starts `task_sleep` as a task; its CreateTaskResult. */
async function startTask(target: Target, ms: number, headers?: Headers) {
  const answer = await rpc(
    target,
    'tools/call',
    { name: 'task_sleep', arguments: { ms } },
    { headers },
  );
  expect(answer.message.result).toMatchObject({ resultType: 'task', status: 'working' });
  return answer.message.result as { taskId: string; ttlMs: number; pollIntervalMs: number };
}

function getTask(target: Target, taskId: string, headers?: Headers) {
  return rpc(target, 'tasks/get', { taskId }, { headers });
}

/** The task tool's line `event` for `taskId`, once the log has it. */
function taskEvent(target: Target, taskId: string, event: string, ms = 30_000): Promise<LogLine> {
  return waitForLog(
    target.log,
    (line) => line.kind === 'task-tool' && line.taskId === taskId && line.event === event,
    ms,
  );
}

/** Polls `tasks/get` until the task leaves `working`; its DetailedTask. */
function settled(target: Target, taskId: string, ms = 30_000) {
  const left = async () => {
    const answer = await getTask(target, taskId);
    const result = answer.message.result;
    if (result === undefined)
      throw new Error(`tasks/get failed: ${JSON.stringify(answer.message)}`);
    return result.status !== 'working' && result;
  };
  return until(left, `task ${taskId} to leave working`, ms, 100);
}

const TASK_ID = /^[0-9a-f]{64}\.[0-9a-f]{32}$/;

describe('tasks in Durable Objects (workerd through wrangler dev)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await workerdTarget('suite');
  });
  afterAll(async () => {
    await target?.stop();
  });

  test('the isolate offers the extension; a task created through the Worker completes, and tasks/get returns its result', async () => {
    const discover = await rpc(target, 'server/discover', {});
    // The tasks extension, next to the skills extension of the example's skill.
    expect(discover.message.result.capabilities.extensions).toMatchObject({ [EXTENSION]: {} });
    const created = await startTask(target, 50);
    expect(created.taskId).toMatch(TASK_ID);
    await taskEvent(target, created.taskId, 'done');
    const done = await settled(target, created.taskId);
    expect(done).toMatchObject({
      resultType: 'complete',
      taskId: created.taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'slept 50 ms' }] },
    });
    // Not declared: the same tool runs as a plain call (in the isolate).
    const plain = await rpc(
      target,
      'tools/call',
      { name: 'task_sleep', arguments: { ms: 1 } },
      { declared: false },
    );
    expect(plain.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'slept 1 ms' }],
    });
  });

  test("a task's handler keeps running after its creating response, with nothing asking its object", async () => {
    const ms = 6000;
    const response = await fetch(
      target.mcpUrl,
      modern('tools/call', { name: 'task_sleep', arguments: { ms } }, DECLARED),
    );
    // The whole answer has been received: the object has no request in flight any more.
    const { taskId } = (await readAnswer(response)).message.result;
    const answered = Date.now();
    // Only the log object is asked while it runs.
    const done = await taskEvent(target, taskId, 'done', ms + 30_000);
    expect(Date.now() - answered).toBeGreaterThanOrEqual(ms - 1000);
    expect(done).toMatchObject({ ms });
    expect(await settled(target, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: `slept ${ms} ms` }] },
    });
  }, 90_000);

  test("past workerd's eviction of an idle object (about 70 s here): the alarm heartbeat keeps the task running", async () => {
    // Measured with wrangler dev (4.86.0): without the heartbeat a 75 s task's object is evicted
    // and the task is answered failed (restart); a 20 s one completes. The objects here beat
    // every 30 s (the default).
    const ms = 85_000;
    const { taskId } = await startTask(target, ms);
    const answered = Date.now();
    const done = await taskEvent(target, taskId, 'done', ms + 30_000);
    expect(Date.now() - answered).toBeGreaterThanOrEqual(ms - 1000);
    expect(done).toMatchObject({ ms });
    expect((await getTask(target, taskId)).message.result).toMatchObject({ status: 'completed' });
  }, 180_000);

  test("a 2025-11-25 session: params.task makes a task in the session's own object", async () => {
    const session = await openSession(target.mcpUrl, '2025-11-25');
    const call = await readAnswer(
      await fetch(
        target.mcpUrl,
        legacy(
          'tools/call',
          { name: 'task_sleep', arguments: { ms: 10 }, task: { ttl: 60_000 } },
          session,
          { version: '2025-11-25' },
        ),
      ),
    );
    const { taskId } = call.message.result.task;
    expect(taskId).toMatch(TASK_ID);
    expect(taskId.slice(0, 64)).toBe(session.slice(0, 64));
    await taskEvent(target, taskId, 'done');
    const result = await readAnswer(
      await fetch(
        target.mcpUrl,
        legacy('tasks/result', { taskId }, session, { version: '2025-11-25' }),
      ),
    );
    expect(result.message.result.content).toEqual([{ type: 'text', text: 'slept 10 ms' }]);
    const get = await readAnswer(
      await fetch(
        target.mcpUrl,
        legacy('tasks/get', { taskId }, session, { version: '2025-11-25' }),
      ),
    );
    expect(get.message.result).toMatchObject({ taskId, status: 'completed' });
  });

  test("a 2025-11-25 task's progress reaches the session's GET stream, in its object", async () => {
    const session = await openSession(target.mcpUrl, '2025-11-25');
    const version = { version: '2025-11-25' };
    const stream = new SseReader(
      await fetch(target.mcpUrl, legacyGet(session, undefined, version)),
    );
    await stream.next();
    const call = await readAnswer(
      await fetch(
        target.mcpUrl,
        legacy(
          'tools/call',
          { name: 'task_sleep', arguments: { ms: 10 }, task: {}, _meta: { progressToken: 'w-1' } },
          session,
          version,
        ),
      ),
    );
    const { taskId } = call.message.result.task;
    const progress = await stream.until((message) => message.method === 'notifications/progress');
    expect(progress.params).toEqual({
      progressToken: 'w-1',
      progress: 0,
      total: 10,
      message: 'sleeping',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    await stream.cancel();
  });

  test("a listen stream that follows a task is served by the task's object and gets its status", async () => {
    const { taskId } = await startTask(target, 60_000);
    await taskEvent(target, taskId, 'start');
    const stream = new SseReader(
      await fetch(
        target.mcpUrl,
        modern('subscriptions/listen', { notifications: { taskIds: [taskId] } }, DECLARED),
      ),
    );
    const ack = await stream.message();
    expect(ack?.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack?.params.notifications.taskIds).toEqual([taskId]);
    const cancelled = await rpc(target, 'tasks/cancel', { taskId });
    expect(cancelled.message.result).toMatchObject({ resultType: 'complete' });
    const status = await stream.until((message) => message.method === 'notifications/tasks');
    expect(status.params).toMatchObject({ taskId, status: 'cancelled' });
    await stream.cancel();
  });

  test('tasks/cancel: the handler is aborted (task-cancelled), the task ends cancelled', async () => {
    const { taskId } = await startTask(target, 120_000);
    await taskEvent(target, taskId, 'start');
    const ack = await rpc(target, 'tasks/cancel', { taskId });
    expect(ack.status).toBe(200);
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    expect(ack.message.result.status).toBeUndefined();
    expect(await taskEvent(target, taskId, 'aborted')).toMatchObject({ reason: 'task-cancelled' });
    expect((await getTask(target, taskId)).message.result).toMatchObject({ status: 'cancelled' });
  });

  test('a task survives its client leaving before reading the answer', async () => {
    const controller = new AbortController();
    // A duration no other test uses names the task in the log.
    const ms = 1500 + Math.floor(Math.random() * 1000);
    const response = await fetch(
      target.mcpUrl,
      modern(
        'tools/call',
        { name: 'task_sleep', arguments: { ms } },
        { ...DECLARED, signal: controller.signal },
      ),
    );
    expect(response.status).toBe(200);
    // Gone with the answer unread.
    controller.abort();
    const started = await waitForLog(
      target.log,
      (line) => line.kind === 'task-tool' && line.event === 'start' && line.ms === ms,
    );
    const taskId = started.taskId as string;
    expect(taskId).toMatch(TASK_ID);
    await taskEvent(target, taskId, 'done', ms + 30_000);
    expect(await settled(target, taskId)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: `slept ${ms} ms` }] },
    });
    const log = await target.log();
    expect(log.filter((l) => l.taskId === taskId && l.event === 'aborted')).toEqual([]);
  });

  test('task ids: one no object can hold is answered in the isolate (-32602, or -32021 undeclared); Mcp-Name routes', async () => {
    for (const taskId of ['nope', `${'0'.repeat(64)}.${'0'.repeat(32)}`]) {
      const unknown = await getTask(target, taskId);
      expect(unknown.status).toBe(200);
      expect(unknown.message.error).toMatchObject({ code: -32602 });
      const undeclared = await rpc(target, 'tasks/get', { taskId }, { declared: false });
      expect(undeclared.status).toBe(400);
      expect(undeclared.message.error).toMatchObject({ code: -32021 });
    }
    const { taskId } = await startTask(target, 10);
    await taskEvent(target, taskId, 'done');
    // Routed by Mcp-Name to the task's object, which checks it against params.taskId.
    const mismatch = await rpc(
      target,
      'tasks/get',
      { taskId: 'other' },
      { headers: { 'mcp-name': taskId } },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.message.error).toMatchObject({ code: -32020 });
    // A well-formed id of an object that never held it: not found, from that object.
    const forged = `${taskId.slice(0, 64)}.${'f'.repeat(32)}`;
    expect((await getTask(target, forged)).message.error).toMatchObject({ code: -32602 });
  });
});

describe('tasks bound to their principal (workerd, FIXTURE=auth)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await workerdTarget('auth');
  });
  afterAll(async () => {
    await target?.stop();
  });

  const alice = { authorization: 'Bearer alice-token' };
  const bob = { authorization: 'Bearer bob-token' };

  test("another principal's task is not found: get, update and cancel", async () => {
    const { taskId } = await startTask(target, 120_000, alice);
    expect((await taskEvent(target, taskId, 'start')).principal).toBe('alice');
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await rpc(target, method, params, { headers: bob });
      expect(answer.message.error).toMatchObject({ code: -32602 });
    }
    // A principal header bob makes up is removed by the Worker.
    const forged = await rpc(
      target,
      'tasks/get',
      { taskId },
      {
        headers: {
          ...bob,
          'edge-mcp-principal': encodeURIComponent(
            JSON.stringify({ principal: 'alice', scopes: [] }),
          ),
        },
      },
    );
    expect(forged.message.error).toMatchObject({ code: -32602 });
    expect((await getTask(target, taskId, alice)).message.result).toMatchObject({
      status: 'working',
    });
    const log = await target.log();
    expect(log.filter((l) => l.taskId === taskId && l.event === 'aborted')).toEqual([]);
    await rpc(target, 'tasks/cancel', { taskId }, { headers: alice });
    expect(await taskEvent(target, taskId, 'aborted')).toMatchObject({ reason: 'task-cancelled' });
  });
});

describe('a session Worker without tasks (workerd, TASKS=off)', () => {
  test('the isolate does not offer the extension, and task tools run as plain calls', async () => {
    const target = await workerdTarget('suite', { vars: { TASKS: 'off' } });
    try {
      const discover = await rpc(target, 'server/discover', {});
      expect(discover.message.result.capabilities.extensions).not.toHaveProperty([EXTENSION]);
      const call = await rpc(target, 'tools/call', { name: 'task_sleep', arguments: { ms: 5 } });
      expect(call.message.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'slept 5 ms' }],
      });
      const get = await getTask(target, `${'0'.repeat(64)}.${'0'.repeat(32)}`);
      expect(get.message.error).toMatchObject({ code: -32601 });
    } finally {
      await target.stop();
    }
  });
});

describe('tasks across a restart of the dev server (persisted storage)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("a completed task's result and a running task's failed end survive a restart", async () => {
    const persistTo = mkdtempSync(join(tmpdir(), 'edge-mcp-tasks-'));
    dirs.push(persistTo);
    let target = await workerdTarget('suite', { persistTo });
    let finished: string;
    let running: string;
    try {
      finished = (await startTask(target, 10)).taskId;
      await taskEvent(target, finished, 'done');
      expect((await settled(target, finished)).status).toBe('completed');
      running = (await startTask(target, 600_000)).taskId;
      await taskEvent(target, running, 'start');
    } finally {
      await target.stop();
    }
    target = await workerdTarget('suite', { persistTo });
    try {
      expect((await getTask(target, finished)).message.result).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'slept 10 ms' }] },
      });
      // Its handler died with the server: the task is answered failed, never working for ever.
      const failed = (await getTask(target, running)).message.result;
      expect(failed).toMatchObject({
        status: 'failed',
        error: { code: -32603, data: { reason: 'restart' } },
      });
      expect(failed.result).toBeUndefined();
      // And so it stays.
      expect((await getTask(target, running)).message.result.status).toBe('failed');
    } finally {
      await target.stop();
    }
  }, 240_000);

  test('after a restart, a task that may run again runs again and completes; one waiting for input, answered then, completes', async () => {
    const persistTo = mkdtempSync(join(tmpdir(), 'edge-mcp-tasks-'));
    dirs.push(persistTo);
    let target = await workerdTarget('suite', { persistTo });
    let again: string;
    let ask: string;
    try {
      const started = await rpc(target, 'tools/call', {
        name: 'task_again',
        arguments: { ms: 5000 },
      });
      again = started.message.result.taskId;
      await taskEvent(target, again, 'start');
      const asked = await rpc(
        target,
        'tools/call',
        { name: 'task_ask', arguments: {} },
        { asks: true },
      );
      ask = asked.message.result.taskId;
      await taskEvent(target, ask, 'asking');
      await until(
        async () => (await getTask(target, ask)).message.result?.status === 'input_required',
        'task_ask to wait for input',
        30_000,
        100,
      );
    } finally {
      await target.stop();
    }
    target = await workerdTarget('suite', { persistTo });
    try {
      // Read after the restart: its object finds the run lost and starts it again.
      const read = (await getTask(target, again)).message.result;
      expect(read).toMatchObject({ status: 'working' });
      expect(read.statusMessage).toMatch(/^Running again \(attempt 2\)/);
      await taskEvent(target, again, 'done');
      expect(await settled(target, again)).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'slept 5000 ms' }] },
      });
      // The task waiting for input asks again (its new run), and the answer given now ends it.
      const waiting = await until(
        async () => {
          const result = (await getTask(target, ask)).message.result;
          return result?.status === 'input_required' && result;
        },
        'task_ask to ask again',
        30_000,
        100,
      );
      expect(Object.keys(waiting.inputRequests)).toEqual(['ending']);
      const ack = await rpc(
        target,
        'tasks/update',
        {
          taskId: ask,
          inputResponses: { ending: { action: 'accept', content: { ending: 'kept' } } },
        },
        { asks: true },
      );
      expect(ack.message.result).toMatchObject({ resultType: 'complete' });
      await taskEvent(target, ask, 'answered');
      expect(await settled(target, ask)).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'ended: kept' }] },
      });
    } finally {
      await target.stop();
    }
  }, 240_000);

  test("after a SIGKILL, nobody reading it: the object's alarm runs a re-runnable task again and it completes", async () => {
    const persistTo = mkdtempSync(join(tmpdir(), 'edge-mcp-tasks-'));
    dirs.push(persistTo);
    // A short heartbeat: the alarm the killed instance set fires a second after the restart.
    const options = { persistTo, vars: { TASK_HEARTBEAT_MS: '1000' } };
    let target = await workerdTarget('suite', options);
    let again: string;
    try {
      const started = await rpc(target, 'tools/call', {
        name: 'task_again',
        arguments: { ms: 3000 },
      });
      again = started.message.result.taskId;
      await taskEvent(target, again, 'start');
    } finally {
      const spawned = target as SpawnedTarget;
      spawned.kill('SIGKILL');
      await spawned.exited;
    }
    target = await workerdTarget('suite', options);
    try {
      // No request names the task: its second run is begun by the object's alarm alone, seen
      // in the deployment's log (a read would start it too, and prove nothing).
      await taskEvent(target, again, 'start');
      await taskEvent(target, again, 'done');
      expect(await settled(target, again)).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'slept 3000 ms' }] },
      });
    } finally {
      await target.stop();
    }
  }, 240_000);
});
