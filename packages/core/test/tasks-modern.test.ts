/**
 * Tasks as 2026-07-28 serves them (issue 14): the `io.modelcontextprotocol/tasks` extension
 * declared per request, a tool's `taskSupport`, CreateTaskResult, `tasks/get|update|cancel`,
 * input through the task, the task's own lifetime (the request leaving does not end it; cancel,
 * TTL and shutdown do) and its binding to the principal.
 */
import { modernRequest, pollTask, readAnswer, SseReader } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { HANDLE } from '../src/adapter.ts';
import { toResponse } from '../src/http/responses.ts';
import {
  type AuthInfo,
  createMcpHandler,
  McpError,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
} from '../src/index.ts';
import { MemoryTaskStore } from '../src/tasks.ts';
import { aborted, call } from './helpers.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const WITH_TASKS = { capabilities: { ...TASKS, elicitation: { form: {} } } };

/** A promise with its resolver outside: the test decides when a handler goes on. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

interface Probe {
  signals: AbortSignal[];
  release: ReturnType<typeof gate<void>>;
  started: ReturnType<typeof gate<string | undefined>>;
}

function server(probe: Probe): McpServer {
  const s = new McpServer({ name: 'tasks', version: '1' });
  s.tool(
    'compute',
    { inputSchema: z.object({ n: z.number() }), taskSupport: 'required' },
    async ({ n }, ctx) => {
      probe.signals.push(ctx.signal);
      probe.started.open(ctx.task?.id);
      await probe.release.promise;
      ctx.signal.throwIfAborted();
      return `${n * 2}`;
    },
  );
  s.tool('maybe', { taskSupport: 'optional' }, (_args, ctx) => `task: ${ctx.task?.id ?? 'none'}`);
  s.tool('plain', {}, (_args, ctx) => `task: ${ctx.task?.id ?? 'none'}`);
  s.tool('ask', { taskSupport: 'required' }, async (_args, ctx) => {
    const schema = { type: 'object', properties: { name: { type: 'string' } } };
    const first = await ctx.elicit({ message: 'name?', requestedSchema: schema }, 'name');
    // The same key again: the task issues a new wire key for it.
    const second = await ctx.elicit({ message: 'again?', requestedSchema: schema }, 'name');
    return `${(first.content as { name: string }).name}+${(second.content as { name: string }).name}`;
  });
  s.tool('staged', { taskSupport: 'optional', taskStart: 'manual' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      { message: 'go?', requestedSchema: { type: 'object', properties: {} } },
      'go',
    );
    if (answer.action !== 'accept') return 'declined';
    const id = await ctx.detach('queued');
    probe.started.open(id);
    await probe.release.promise;
    return `detached ${id !== undefined}`;
  });
  s.tool('broken', { taskSupport: 'required' }, () => {
    throw new Error('a tool error the model may read');
  });
  s.tool('refused', { taskSupport: 'required' }, () => {
    throw new McpError(-32602, 'n must be positive');
  });
  return s;
}

function setup(options: McpHandlerOptions = {}) {
  const probe: Probe = { signals: [], release: gate(), started: gate() };
  const handler = createMcpHandler(server(probe), {
    requestState: { secret: 'test-secret' },
    ...options,
  });
  return { probe, handler };
}

const poll = (handler: McpHandler, taskId: string, done: (status: string) => boolean) =>
  pollTask(() => call(handler, 'tasks/get', { taskId }, WITH_TASKS), done);

async function start(handler: McpHandler, name: string, args: Record<string, unknown> = {}) {
  const answer = await call(handler, 'tools/call', { name, arguments: args }, WITH_TASKS);
  return answer.message.result;
}

describe('tasks (2026-07-28 extension)', () => {
  test('server/discover advertises the extension only when a tool runs as a task', async () => {
    const { handler } = setup();
    const discovered = (await call(handler, 'server/discover')).message.result;
    expect(discovered.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    const bare = new McpServer({ name: 'bare', version: '1' });
    bare.tool('plain', {}, () => 'x');
    const none = await call(createMcpHandler(bare), 'server/discover');
    expect(none.message.result.capabilities.extensions).toBeUndefined();
    const off = setup({ tasks: false });
    const disabled = await call(off.handler, 'server/discover');
    expect(disabled.message.result.capabilities.extensions).toBeUndefined();
  });

  test('a required tool answers a CreateTaskResult; tasks/get follows it to its result', async () => {
    const { probe, handler } = setup();
    const created = await start(handler, 'compute', { n: 21 });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const { _meta, ...fields } = created;
    expect(Object.keys(fields).sort()).toEqual(
      [
        'createdAt',
        'lastUpdatedAt',
        'pollIntervalMs',
        'resultType',
        'status',
        'taskId',
        'ttlMs',
      ].sort(),
    );
    expect(created.ttlMs).toBe(3_600_000);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    expect(await probe.started.promise).toBe(created.taskId);
    const working = await poll(handler, created.taskId, () => true);
    expect(working).toMatchObject({ resultType: 'complete', status: 'working' });
    probe.release.open();
    const done = await poll(handler, created.taskId, (s) => s !== 'working');
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({
      content: [{ type: 'text', text: '42' }],
      resultType: 'complete',
    });
    // The request that started it ended long ago; the handler's signal never fired.
    expect(probe.signals[0]?.aborted).toBe(false);
    expect(handler.stats().tasks).toBe(0);
  });

  test('without the extension: required is -32021 (HTTP 400) before the handler runs', async () => {
    const { probe, handler } = setup();
    const answer = await call(handler, 'tools/call', { name: 'compute', arguments: { n: 1 } });
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32021);
    expect(answer.message.error.data).toEqual({ requiredCapabilities: TASKS });
    expect(probe.signals).toHaveLength(0);
    const get = await call(handler, 'tasks/get', { taskId: 'gate-test' });
    expect(get.message.error.code).toBe(-32021);
  });

  test('optional runs as a task only when declared; forbidden never does', async () => {
    const { handler } = setup();
    const plainCall = await call(handler, 'tools/call', { name: 'maybe', arguments: {} });
    expect(plainCall.message.result.content[0].text).toBe('task: none');
    const asTask = await start(handler, 'maybe');
    expect(asTask.resultType).toBe('task');
    const done = await poll(handler, asTask.taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe(`task: ${asTask.taskId}`);
    const forbidden = await start(handler, 'plain');
    expect(forbidden.resultType).toBe('complete');
    expect(forbidden.content[0].text).toBe('task: none');
  });

  test('input inside a task: input_required, tasks/update, a fresh key for a repeated one', async () => {
    const { handler } = setup();
    const { taskId } = await start(handler, 'ask');
    const waiting = await poll(handler, taskId, (s) => s === 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
    expect(waiting.inputRequests.name.method).toBe('elicitation/create');
    const ack = await call(
      handler,
      'tasks/update',
      {
        taskId,
        inputResponses: {
          name: { action: 'accept', content: { name: 'Ada' } },
          unknown: { action: 'decline' },
        },
      },
      WITH_TASKS,
    );
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    expect(ack.message.result.status).toBeUndefined();
    const again = await poll(handler, taskId, (s) => s === 'input_required' || s === 'completed');
    expect(Object.keys(again.inputRequests)).toEqual(['name~2']);
    await call(
      handler,
      'tasks/update',
      { taskId, inputResponses: { 'name~2': { action: 'accept', content: { name: 'Bo' } } } },
      WITH_TASKS,
    );
    const done = await poll(handler, taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe('Ada+Bo');
  });

  test('tasks/cancel records cancelled, aborts the handler with task-cancelled, and is idempotent', async () => {
    const { probe, handler } = setup();
    const { taskId } = await start(handler, 'compute', { n: 1 });
    await probe.started.promise;
    const ack = await call(handler, 'tasks/cancel', { taskId }, WITH_TASKS);
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    expect(ack.message.result.status).toBeUndefined();
    const reason = await aborted(probe.signals[0] as AbortSignal);
    expect(reason).toMatchObject({ type: 'task-cancelled' });
    probe.release.open();
    expect((await poll(handler, taskId, () => true)).status).toBe('cancelled');
    const again = await call(handler, 'tasks/cancel', { taskId }, WITH_TASKS);
    expect(again.message.result).toMatchObject({ resultType: 'complete' });
  });

  test('a tool error completes (isError, as a plain call); a protocol error fails the task', async () => {
    const { handler } = setup();
    const broken = await start(handler, 'broken');
    const completed = await poll(handler, broken.taskId, (s) => s !== 'working');
    expect(completed.status).toBe('completed');
    expect(completed.result).toMatchObject({ isError: true });
    expect(completed.error).toBeUndefined();
    const refused = await start(handler, 'refused');
    const failed = await poll(handler, refused.taskId, (s) => s !== 'working');
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: -32602, message: 'n must be positive' });
    expect(failed.result).toBeUndefined();
  });

  test('unknown ids are -32602; Mcp-Name must name the task (-32020)', async () => {
    const { handler } = setup();
    const unknown = await call(handler, 'tasks/get', { taskId: 'nope' }, WITH_TASKS);
    expect(unknown.message.error.code).toBe(-32602);
    for (const method of ['tasks/update', 'tasks/cancel']) {
      const params =
        method === 'tasks/update' ? { taskId: 'nope', inputResponses: {} } : { taskId: 'nope' };
      expect((await call(handler, method, params, WITH_TASKS)).message.error.code).toBe(-32602);
    }
    const request = modernRequest('tasks/get', { taskId: 'a' }, WITH_TASKS);
    request.headers.set('mcp-name', 'b');
    const mismatch = await readAnswer(await handler.fetch(request));
    expect(mismatch.status).toBe(400);
    expect(mismatch.message.error.code).toBe(-32020);
    for (const removed of ['tasks/result', 'tasks/list']) {
      const answer = await call(handler, removed, { taskId: 'a' }, WITH_TASKS);
      expect(answer.message.error.code).toBe(-32601);
    }
  });

  test('the creating request leaving does not cancel the task', async () => {
    const { probe, handler } = setup();
    const controller = new AbortController();
    const response = await handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'compute', arguments: { n: 2 } },
        {
          ...WITH_TASKS,
          signal: controller.signal,
        },
      ),
    );
    const { taskId } = (await readAnswer(response)).message.result;
    controller.abort();
    await probe.started.promise;
    expect(probe.signals[0]?.aborted).toBe(false);
    probe.release.open();
    expect((await poll(handler, taskId, (s) => s !== 'working')).status).toBe('completed');
  });

  test('taskStart manual: MRTR first, then ctx.detach() turns the call into a task', async () => {
    const { probe, handler } = setup();
    const first = await start(handler, 'staged');
    expect(first.resultType).toBe('input_required');
    const retry = await call(
      handler,
      'tools/call',
      {
        name: 'staged',
        arguments: {},
        requestState: first.requestState,
        inputResponses: { go: { action: 'accept', content: {} } },
      },
      WITH_TASKS,
    );
    const created = retry.message.result;
    expect(created).toMatchObject({ resultType: 'task', statusMessage: 'queued' });
    expect(created.requestState).toBeUndefined();
    expect(await probe.started.promise).toBe(created.taskId);
    probe.release.open();
    const done = await poll(handler, created.taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe('detached true');
  });

  test('shutdown: a running task is recorded failed and its handler aborted; close() waits for it', async () => {
    const store = new MemoryTaskStore();
    const { probe, handler } = setup({ tasks: { store } });
    const { taskId } = await start(handler, 'compute', { n: 3 });
    await probe.started.promise;
    expect(handler.stats().tasks).toBe(1);
    const closing = handler.close();
    const reason = await aborted(probe.signals[0] as AbortSignal);
    expect(reason).toMatchObject({ type: 'shutdown' });
    probe.release.open();
    await closing;
    expect(handler.stats().tasks).toBe(0);
    expect(store.get(taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, data: { reason: 'shutdown' } },
    });
  });

  test('the TTL ends a task: its handler aborts (task-expired) and it is "not found"', async () => {
    const { probe, handler } = setup({ tasks: { ttlMs: 50 } });
    const { taskId, ttlMs } = await start(handler, 'compute', { n: 4 });
    expect(ttlMs).toBe(50);
    await probe.started.promise;
    const reason = await aborted(probe.signals[0] as AbortSignal);
    expect(reason).toMatchObject({ type: 'task-expired' });
    const gone = await call(handler, 'tasks/get', { taskId }, WITH_TASKS);
    expect(gone.message.error.code).toBe(-32602);
    probe.release.open();
  });

  test('over maxActivePerPrincipal an optional call runs inline and a required one is refused', async () => {
    const { probe, handler } = setup({ tasks: { maxActivePerPrincipal: 1 } });
    const first = await start(handler, 'compute', { n: 5 });
    expect(first.resultType).toBe('task');
    const inline = await start(handler, 'maybe');
    expect(inline.content[0].text).toBe('task: none');
    const refused = await call(
      handler,
      'tools/call',
      { name: 'compute', arguments: { n: 6 } },
      WITH_TASKS,
    );
    expect(refused.status).toBe(429);
    probe.release.open();
    await poll(handler, first.taskId, (s) => s === 'completed');
  });
});

describe('unauthenticated clients', () => {
  /** A 2026-07-28 request as the adapter of a runtime hands it over, from `address`. */
  async function from(
    address: string,
    handler: McpHandler,
    method: string,
    params: Record<string, unknown>,
  ) {
    const request = Object.assign(modernRequest(method, params, WITH_TASKS), {
      remoteAddress: address,
    });
    return readAnswer(toResponse(await handler[HANDLE](request)));
  }

  test("a client address's listen stream follows that address's tasks, and no other's", async () => {
    const { probe, handler } = setup();
    const created = await from('192.0.2.1', handler, 'tools/call', {
      name: 'compute',
      arguments: { n: 1 },
    });
    const { taskId } = created.message.result;
    const listenFrom = async (address: string) => {
      const request = Object.assign(
        modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }, WITH_TASKS),
        { remoteAddress: address },
      );
      const reader = new SseReader(toResponse(await handler[HANDLE](request)));
      const [ack] = await reader.messages(1);
      await reader.cancel();
      return ack?.params.notifications.taskIds;
    };
    expect(await listenFrom('192.0.2.1')).toEqual([taskId]);
    expect(await listenFrom('192.0.2.2')).toEqual([]);
    probe.release.open();
  });

  test("each client address has its own task quota and binding: one client's tasks neither fill another's quota nor show to it", async () => {
    const { probe, handler } = setup({ tasks: { maxActivePerPrincipal: 1 } });
    const mine = await from('192.0.2.1', handler, 'tools/call', {
      name: 'compute',
      arguments: { n: 1 },
    });
    expect(mine.message.result.resultType).toBe('task');
    const again = await from('192.0.2.1', handler, 'tools/call', {
      name: 'compute',
      arguments: { n: 2 },
    });
    expect(again.status).toBe(429);
    // Before, every unauthenticated client shared one binding: this one was refused too.
    const theirs = await from('192.0.2.2', handler, 'tools/call', {
      name: 'compute',
      arguments: { n: 3 },
    });
    expect(theirs.message.result.resultType).toBe('task');
    const taskId = mine.message.result.taskId;
    const peek = await from('192.0.2.2', handler, 'tasks/get', { taskId });
    expect(peek.message.error?.code).toBe(-32602);
    const own = await from('192.0.2.1', handler, 'tasks/get', { taskId });
    expect(own.message.result.taskId).toBe(taskId);
    probe.release.open();
    await handler.close();
  });
});

describe('a task waiting for input', () => {
  test('cancel and shutdown end its wait: the handler settles, close() does not wait it out', async () => {
    const { handler } = setup({ shutdownTimeoutMs: 60_000 });
    const one = await start(handler, 'ask');
    const two = await start(handler, 'ask');
    await poll(handler, one.taskId, (s) => s === 'input_required');
    await poll(handler, two.taskId, (s) => s === 'input_required');
    expect(handler.stats().tasks).toBe(2);
    await call(handler, 'tasks/cancel', { taskId: one.taskId }, WITH_TASKS);
    await expect.poll(() => handler.stats().tasks).toBe(1);
    // With a 60 s timeout, a test that finishes means close() did not wait for it.
    await handler.close();
    expect(handler.stats().tasks).toBe(0);
  });
});

describe('task status on a listen stream', () => {
  test('taskIds: only known ids are acknowledged; each change arrives as notifications/tasks', async () => {
    const { probe, handler } = setup();
    const { taskId } = await start(handler, 'compute', { n: 8 });
    const reader = new SseReader(
      await handler.fetch(
        modernRequest(
          'subscriptions/listen',
          { notifications: { taskIds: [taskId, 'unknown'] } },
          { ...WITH_TASKS, id: 'sub-t' },
        ),
      ),
    );
    const [ack] = await reader.messages(1);
    expect(ack?.params.notifications).toEqual({ taskIds: [taskId] });
    probe.release.open();
    const [change] = await reader.messages(1);
    expect(change).toMatchObject({
      method: 'notifications/tasks',
      params: {
        taskId,
        status: 'completed',
        result: { content: [{ type: 'text', text: '16' }] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-t' },
      },
    });
    await reader.cancel();
    await expect.poll(() => handler.inFlight).toBe(0);
  });

  test('taskIds without the extension declared is -32021', async () => {
    const { handler } = setup();
    const answer = await call(handler, 'subscriptions/listen', {
      notifications: { taskIds: ['x'] },
    });
    expect(answer.message.error.code).toBe(-32021);
  });
});

describe('tasks and principals', () => {
  const TOKENS: Record<string, AuthInfo> = {
    alice: { principal: 'alice', scopes: [] },
    bob: { principal: 'bob', scopes: [] },
  };
  const as = (token: string) => ({ ...WITH_TASKS, headers: { authorization: `Bearer ${token}` } });

  test("another principal's task is not found: get, update and cancel", async () => {
    const { probe, handler } = setup({
      auth: {
        verify: (token) => TOKENS[token],
        resource: 'http://localhost/mcp',
        authorizationServers: ['http://127.0.0.1:9000'],
      },
    });
    const created = await call(
      handler,
      'tools/call',
      { name: 'compute', arguments: { n: 7 } },
      as('alice'),
    );
    const { taskId } = created.message.result;
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await call(handler, method, params, as('bob'));
      expect(answer.message.error.code).toBe(-32602);
    }
    const listen = new SseReader(
      await handler.fetch(
        modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }, as('bob')),
      ),
    );
    const [ack] = await listen.messages(1);
    expect(ack?.params.notifications).toEqual({ taskIds: [] });
    await listen.cancel();
    const mine = await call(handler, 'tasks/get', { taskId }, as('alice'));
    expect(mine.message.result.status).toBe('working');
    probe.release.open();
  });
});
