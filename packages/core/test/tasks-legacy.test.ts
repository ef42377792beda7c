/**
 * Tasks as 2025-11-25 sessions use them (issue 14): the `tasks` capability, `execution` in
 * tools/list, `params.task` on tools/call, `tasks/get|result|list|cancel`, input delivered on the
 * blocking `tasks/result` stream, `notifications/tasks/status` on the GET stream, session-bound
 * tasks, and the older revisions that have no tasks.
 */
import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  openSession,
  pollTask,
  postRequest,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createMcpHandler, McpError, type McpHandler, McpServer } from '../src/index.ts';
import { aborted } from './helpers.ts';

const RELATED = 'io.modelcontextprotocol/related-task';

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function setup() {
  const release = gate();
  const signals: AbortSignal[] = [];
  const s = new McpServer({ name: 'legacy-tasks', version: '1' });
  s.tool('plain', {}, () => 'plain');
  s.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
    signals.push(ctx.signal);
    await release.promise;
    ctx.signal.throwIfAborted();
    return `job ${ctx.task?.id ?? 'inline'}`;
  });
  s.tool('must', { taskSupport: 'required' }, () => 'must');
  s.tool('fails', { taskSupport: 'required' }, () => {
    throw new McpError(-32602, 'bad job');
  });
  s.tool('tool-error', { taskSupport: 'required' }, () => ({
    content: [{ type: 'text', text: 'no' }],
    isError: true,
  }));
  s.tool('confirm', { taskSupport: 'required' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Sure?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    return `confirmed: ${(answer.content as { ok: boolean }).ok}`;
  });
  const handler = createMcpHandler(s);
  return { handler, release, signals };
}

async function rpc(
  handler: McpHandler,
  method: string,
  params: Record<string, unknown>,
  session: string,
) {
  return (await readAnswer(await handler.fetch(legacyRequest(method, params, session)))).message;
}

/** The task, once `done` holds for its status (polled with `tasks/get` on the session). */
const taskUntil = (
  handler: McpHandler,
  session: string,
  taskId: string,
  done: (status: string) => boolean,
) =>
  pollTask(
    async () => readAnswer(await handler.fetch(legacyRequest('tasks/get', { taskId }, session))),
    done,
  );

describe('tasks (2025-11-25 sessions)', () => {
  test('initialize and tools/list tell the client what runs as a task; older revisions see nothing', async () => {
    const { handler } = setup();
    const init = await readAnswer(
      await handler.fetch(
        legacyRequest('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      ),
    );
    expect(init.message.result.capabilities.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const session = await openSession(handler, '2025-11-25');
    const tools = (await rpc(handler, 'tools/list', {}, session)).result.tools;
    const support = Object.fromEntries(
      tools.map((t: { name: string; execution?: { taskSupport: string } }) => [
        t.name,
        t.execution?.taskSupport,
      ]),
    );
    expect(support).toMatchObject({ plain: undefined, job: 'optional', must: 'required' });
    const old = await openSession(handler, '2025-06-18');
    const oldInit = await readAnswer(
      await handler.fetch(
        legacyRequest('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      ),
    );
    expect(oldInit.message.result.capabilities.tasks).toBeUndefined();
    const oldTools = (await rpc(handler, 'tools/list', {}, old)).result.tools;
    expect(oldTools.some((t: { execution?: unknown }) => t.execution)).toBe(false);
    // An older revision cannot ask for a task: a required tool runs as a plain call there.
    const inline = await rpc(handler, 'tools/call', { name: 'must', arguments: {} }, old);
    expect(inline.result.content[0].text).toBe('must');
    expect((await rpc(handler, 'tasks/get', { taskId: 'x' }, old)).error.code).toBe(-32601);
  });

  test('params.task makes a task; tasks/get, tasks/result and tasks/list follow it', async () => {
    const { handler, release, signals } = setup();
    const session = await openSession(handler, '2025-11-25');
    const created = await rpc(
      handler,
      'tools/call',
      { name: 'job', arguments: {}, task: { ttl: 60_000 } },
      session,
    );
    const task = created.result.task;
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
    expect(task.ttlMs).toBeUndefined();
    const listed = (await rpc(handler, 'tasks/list', {}, session)).result.tasks;
    expect(listed.map((t: { taskId: string }) => t.taskId)).toEqual([task.taskId]);
    // tasks/result blocks until the task ends, then answers what the call would have.
    const pending = handler
      .fetch(legacyRequest('tasks/result', { taskId: task.taskId }, session))
      .then(readAnswer);
    release.open();
    const result = (await pending).message.result;
    expect(result.content[0].text).toBe(`job ${task.taskId}`);
    expect(result._meta[RELATED]).toEqual({ taskId: task.taskId });
    expect(signals[0]?.aborted).toBe(false);
    const done = (await rpc(handler, 'tasks/get', { taskId: task.taskId }, session)).result;
    expect(done.status).toBe('completed');
    // Without params.task the same tool is a plain call.
    const plain = await rpc(handler, 'tools/call', { name: 'job', arguments: {} }, session);
    expect(plain.result.content[0].text).toBe('job inline');
  });

  test('required without params.task and forbidden with it are -32601', async () => {
    const { handler } = setup();
    const session = await openSession(handler, '2025-11-25');
    const required = await rpc(handler, 'tools/call', { name: 'must', arguments: {} }, session);
    expect(required.error.code).toBe(-32601);
    const forbidden = await rpc(
      handler,
      'tools/call',
      { name: 'plain', arguments: {}, task: {} },
      session,
    );
    expect(forbidden.error.code).toBe(-32601);
  });

  test('a TTL asked for is clamped to maxTtlMs', async () => {
    const { handler } = setup();
    const session = await openSession(handler, '2025-11-25');
    const created = await rpc(
      handler,
      'tools/call',
      { name: 'must', arguments: {}, task: { ttl: 10 ** 12 } },
      session,
    );
    expect(created.result.task.ttl).toBe(86_400_000);
  });

  test('failed tasks: tasks/result answers the error; a tool error shows failed but returns the result', async () => {
    const { handler } = setup();
    const session = await openSession(handler, '2025-11-25');
    const fails = (
      await rpc(handler, 'tools/call', { name: 'fails', arguments: {}, task: {} }, session)
    ).result.task;
    const error = await rpc(handler, 'tasks/result', { taskId: fails.taskId }, session);
    expect(error.error).toMatchObject({ code: -32602, message: 'bad job' });
    const toolError = (
      await rpc(handler, 'tools/call', { name: 'tool-error', arguments: {}, task: {} }, session)
    ).result.task;
    const result = await rpc(handler, 'tasks/result', { taskId: toolError.taskId }, session);
    expect(result.result.isError).toBe(true);
    expect((await taskUntil(handler, session, toolError.taskId, () => true)).status).toBe('failed');
  });

  test('tasks/cancel: cancelled before the reply, the handler aborted; a finished task is -32602', async () => {
    const { handler, signals } = setup();
    const session = await openSession(handler, '2025-11-25');
    const task = (
      await rpc(handler, 'tools/call', { name: 'job', arguments: {}, task: {} }, session)
    ).result.task;
    const cancelled = await rpc(handler, 'tasks/cancel', { taskId: task.taskId }, session);
    expect(cancelled.result).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect(await aborted(signals[0] as AbortSignal)).toMatchObject({ type: 'task-cancelled' });
    const again = await rpc(handler, 'tasks/cancel', { taskId: task.taskId }, session);
    expect(again.error.code).toBe(-32602);
    const result = await rpc(handler, 'tasks/result', { taskId: task.taskId }, session);
    expect(result.error).toMatchObject({ code: -32000, message: 'Task cancelled' });
  });

  test('input: the task waits in input_required; tasks/result carries its elicitation, related to the task', async () => {
    const { handler } = setup();
    const session = await openSession(handler, '2025-11-25', { elicitation: {} });
    const task = (
      await rpc(handler, 'tools/call', { name: 'confirm', arguments: {}, task: {} }, session)
    ).result.task;
    await taskUntil(handler, session, task.taskId, (s) => s === 'input_required');
    const reader = new SseReader(
      await handler.fetch(legacyRequest('tasks/result', { taskId: task.taskId }, session)),
    );
    const ask = await reader.message();
    expect(ask).toMatchObject({ method: 'elicitation/create', params: { message: 'Sure?' } });
    expect(ask?.params._meta[RELATED]).toEqual({ taskId: task.taskId });
    const answered = await handler.fetch(
      postRequest(
        { jsonrpc: '2.0', id: ask?.id, result: { action: 'accept', content: { ok: true } } },
        session,
      ),
    );
    expect(answered.status).toBe(202);
    const final = await reader.message();
    expect(final?.result.content[0].text).toBe('confirmed: true');
  });

  test('status changes reach the session GET stream as notifications/tasks/status', async () => {
    const { handler, release } = setup();
    const session = await openSession(handler, '2025-11-25');
    const stream = new SseReader(await handler.fetch(legacyGetRequest(session)));
    const task = (
      await rpc(handler, 'tools/call', { name: 'job', arguments: {}, task: {} }, session)
    ).result.task;
    release.open();
    for (;;) {
      const message = await stream.message();
      expect(message?.method).toBe('notifications/tasks/status');
      expect(message?.params.taskId).toBe(task.taskId);
      if (message?.params.status === 'completed') break;
    }
    await stream.cancel();
  });

  test("a task's progress goes to the GET stream with the call's token and the task's id, and none without a token", async () => {
    const s = new McpServer({ name: 'legacy-task-progress', version: '1' });
    const steps = gate();
    s.tool('steps', { taskSupport: 'required' }, async (_args, ctx) => {
      await steps.promise;
      ctx.progress(1, 3, 'one');
      ctx.progress(1, 3, 'one again'); // not forward: dropped
      ctx.progress(2, 3);
      return 'stepped';
    });
    const handler = createMcpHandler(s);
    const session = await openSession(handler, '2025-11-25');
    const stream = new SseReader(await handler.fetch(legacyGetRequest(session)));
    const call = (meta?: Record<string, unknown>) =>
      rpc(
        handler,
        'tools/call',
        { name: 'steps', arguments: {}, task: {}, ...(meta ? { _meta: meta } : {}) },
        session,
      );
    const withToken = (await call({ progressToken: 'p-1' })).result.task;
    const without = (await call()).result.task;
    steps.open();
    const progress: Record<string, unknown>[] = [];
    const completed = new Set<string>();
    while (completed.size < 2) {
      const message = await stream.message();
      if (message?.method === 'notifications/progress') progress.push(message.params);
      else if (message?.params?.status === 'completed') completed.add(message.params.taskId);
    }
    expect(progress).toEqual([
      {
        progressToken: 'p-1',
        progress: 1,
        total: 3,
        message: 'one',
        _meta: { [RELATED]: { taskId: withToken.taskId } },
      },
      {
        progressToken: 'p-1',
        progress: 2,
        total: 3,
        _meta: { [RELATED]: { taskId: withToken.taskId } },
      },
    ]);
    expect([...completed].sort()).toEqual([withToken.taskId, without.taskId].sort());
    await stream.cancel();
    await handler.close();
  });

  test("tasks are the session's: another session cannot see them; DELETE cancels them", async () => {
    const { handler, signals } = setup();
    const mine = await openSession(handler, '2025-11-25');
    const other = await openSession(handler, '2025-11-25');
    const task = (await rpc(handler, 'tools/call', { name: 'job', arguments: {}, task: {} }, mine))
      .result.task;
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel'])
      expect((await rpc(handler, method, { taskId: task.taskId }, other)).error.code).toBe(-32602);
    expect((await rpc(handler, 'tasks/list', {}, other)).result.tasks).toEqual([]);
    expect((await handler.fetch(legacyDeleteRequest(mine))).status).toBe(200);
    expect(await aborted(signals[0] as AbortSignal)).toMatchObject({ type: 'task-cancelled' });
  });

  test('a bad tasks/list cursor is -32602', async () => {
    const { handler } = setup();
    const session = await openSession(handler, '2025-11-25');
    expect((await rpc(handler, 'tasks/list', { cursor: 'x' }, session)).error.code).toBe(-32602);
  });
});
