/**
 * Tasks on Cloudflare, in-process (issue 14): the DurableObjectTaskStore on a stand-in for a
 * Durable Object's storage (its synchronous KV, its one alarm), the alarm it shares with the
 * session manager, and the session Worker's routing to task objects. workerd itself runs these
 * in packages/test-suite/test/workerd-tasks.test.ts.
 */
import {
  abortReasonType,
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
} from '@edge-mcp/core';
import { taskRoute } from '@edge-mcp/core/adapter';
import { SessionManager } from '@edge-mcp/core/sessions';
import {
  legacy,
  modern,
  modernRequest,
  openSession,
  pollTask,
  readAnswer,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import {
  createSessionWorker,
  type DurableObjectNamespace,
  DurableObjectSessionStore,
  DurableObjectTaskStore,
  ObjectAlarm,
  PRINCIPAL_HEADER,
  WORKERD_HANDLER_OPTIONS,
} from '../src/cloudflare/index.ts';
import type { DurableObjectState } from '../src/cloudflare/workers-types.ts';
import { type Deferred, deferred, within } from './helpers.ts';

const EXTENSION = 'io.modelcontextprotocol/tasks';
const DECLARED = { capabilities: { extensions: { [EXTENSION]: {} } } };
const OBJECT_ID = 'a'.repeat(64);

/** A Durable Object's state as the stores use it: synchronous KV, one alarm, deleteAll. */
function fakeState(id = OBJECT_ID) {
  const kv = new Map<string, unknown>();
  const storage = {
    alarm: null as number | null,
    deletedAll: 0,
    kv: {
      get: <T>(key: string) => structuredClone(kv.get(key)) as T | undefined,
      put: <T>(key: string, value: T) => {
        kv.set(key, structuredClone(value));
      },
      delete: (key: string) => kv.delete(key),
      list: <T>(options: { prefix?: string } = {}) =>
        [...kv.entries()]
          .filter(([key]) => key.startsWith(options.prefix ?? ''))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([key, value]) => [key, structuredClone(value)] as [string, T]),
    },
    sql: {
      exec: () => {
        throw new Error('no SQL in this stand-in');
      },
    },
    async deleteAll() {
      kv.clear();
      storage.deletedAll++;
    },
    async setAlarm(at: number | Date) {
      storage.alarm = Number(at);
    },
    async getAlarm() {
      return storage.alarm;
    },
    async deleteAlarm() {
      storage.alarm = null;
    },
  };
  const state = {
    id: { toString: () => id },
    storage,
    blockConcurrencyWhile: <T>(fn: () => Promise<T>) => fn(),
  } satisfies DurableObjectState;
  return { state, storage, kv };
}

/** When the stored task `taskId` expires. */
function expiresAt(kv: Map<string, unknown>, taskId: string): number | undefined {
  return (kv.get(`mcp-task:${taskId}`) as { expiresAt: number } | undefined)?.expiresAt;
}

interface Probe {
  release: Deferred<void>;
  started: Deferred<string | undefined>;
  aborted: Deferred<unknown>;
}

function probe(): Probe {
  return { release: deferred(), started: deferred(), aborted: deferred() };
}

function taskServer(p: Probe): McpServer {
  const server = new McpServer({ name: 'tasks', version: '1' });
  server.tool(
    'work',
    {
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      taskSupport: 'optional',
    },
    async (args, ctx) => {
      const { n } = args as { n: number };
      ctx.signal.addEventListener('abort', () => p.aborted.resolve(abortReasonType(ctx.signal)));
      p.started.resolve(ctx.task?.id);
      await p.release.promise;
      ctx.signal.throwIfAborted();
      return `worked ${n}`;
    },
  );
  // The same work, from a tool that may run again when its run is lost.
  server.tool(
    'again',
    {
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      taskSupport: 'optional',
      retry: { attempts: 2 },
    },
    async (args, ctx) => {
      p.started.resolve(ctx.task?.id);
      await p.release.promise;
      return `again ${(args as { n: number }).n}`;
    },
  );
  server.tool('plain', {}, () => 'plain');
  return server;
}

/** The object's handler: the same handler as everywhere, its tasks in the object's store. */
function objectHandler(
  state: DurableObjectState,
  p: Probe,
  { heartbeatMs, ...options }: McpHandlerOptions & { heartbeatMs?: number } = {},
) {
  const alarm = new ObjectAlarm(state);
  // heartbeatMs is the store's, not the handler's (which refuses options it does not know).
  const store = new DurableObjectTaskStore(state, { alarm, heartbeatMs });
  const manager = new SessionManager({
    store: new DurableObjectSessionStore(state, { alarm }),
    idleTimeoutMs: 60_000,
  });
  const handler = createMcpHandler(taskServer(p), {
    ...options,
    sessions: manager,
    eventStore: false,
    tasks: { ...(typeof options.tasks === 'object' ? options.tasks : {}), store },
  });
  return { handler, store, alarm, manager };
}

async function call(handler: McpHandler, method: string, params: Record<string, unknown>) {
  return readAnswer(await handler.fetch(modernRequest(method, params, DECLARED)));
}

const poll = (handler: McpHandler, taskId: string, done: (status: string) => boolean) =>
  pollTask(() => call(handler, 'tasks/get', { taskId }), done);

describe('DurableObjectTaskStore', () => {
  test('ids name the object; the record is stored at once; the alarm beats while it runs, then waits for the TTL', async () => {
    const { state, storage, kv } = fakeState();
    const p = probe();
    const { handler, store } = objectHandler(state, p, { heartbeatMs: 1000 });
    const before = Date.now();
    const created = (await call(handler, 'tools/call', { name: 'work', arguments: { n: 1 } }))
      .message.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.taskId).toMatch(new RegExp(`^${OBJECT_ID}\\.[0-9a-f]{32}$`));
    // Durable before the answer: the record is in the object's storage.
    expect(kv.get(`mcp-task:${created.taskId}`)).toMatchObject({ status: 'working' });
    // The heartbeat, not the TTL (an hour away), sets the alarm while the task runs.
    expect(storage.alarm).toBeGreaterThanOrEqual(before + 1000);
    expect(storage.alarm).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await p.started.promise).toBe(created.taskId);
    // The alarm fires: still running, so it beats again.
    const firing = Date.now();
    await store.alarm();
    expect(storage.alarm).toBeGreaterThanOrEqual(firing + 1000);
    expect(storage.alarm).toBeLessThan(firing + 60_000);
    p.release.resolve();
    const done = await poll(handler, created.taskId, (s) => s !== 'working');
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'worked 1' }] },
    });
    // Ended: the next alarm is the TTL's.
    await store.alarm();
    expect(storage.alarm).toBe(expiresAt(kv, created.taskId));
    expect(store.usage()).toEqual({ tasks: 1, active: 0 });
  });

  test('a new instance on the same storage (a restart): the result is kept, a running task is answered failed', async () => {
    const { state } = fakeState();
    const first = probe();
    const before = objectHandler(state, first);
    const finished = (
      await call(before.handler, 'tools/call', { name: 'work', arguments: { n: 2 } })
    ).message.result.taskId;
    first.release.resolve();
    await poll(before.handler, finished, (s) => s === 'completed');
    const second = probe();
    const running = objectHandler(state, second);
    const orphan = (
      await call(running.handler, 'tools/call', { name: 'work', arguments: { n: 3 } })
    ).message.result.taskId;
    await second.started.promise;

    // The object restarts: a new instance, the same storage, the handler of `orphan` gone.
    const after = objectHandler(state, probe());
    expect(await poll(after.handler, finished, () => true)).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'worked 2' }] },
    });
    const failed = await poll(after.handler, orphan, () => true);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, data: { reason: 'restart' } },
    });
    // Recorded: a later instance sees it failed too, never working.
    expect((await poll(objectHandler(state, probe()).handler, orphan, () => true)).status).toBe(
      'failed',
    );
  });

  test('a restart lost a run that may run again: the next alarm, with no read, runs it again and beats for it', async () => {
    const { state, storage } = fakeState();
    const first = probe();
    const before = objectHandler(state, first, { heartbeatMs: 1000 });
    const lost = (await call(before.handler, 'tools/call', { name: 'again', arguments: { n: 4 } }))
      .message.result.taskId;
    await first.started.promise;

    // A new instance on the same storage; the alarm the lost one set fires there.
    const second = probe();
    const after = objectHandler(state, second, { heartbeatMs: 1000 });
    const firing = Date.now();
    await after.alarm.fire();
    expect(await within(second.started.promise, 'the run begun by the alarm')).toBe(lost);
    // Running here now: the alarm beats for it, not only at its TTL an hour away.
    expect(after.store.usage()).toEqual({ tasks: 1, active: 1 });
    expect(storage.alarm).toBeGreaterThanOrEqual(firing + 1000);
    expect(storage.alarm).toBeLessThan(firing + 60_000);
    second.release.resolve();
    expect(await poll(after.handler, lost, (s) => s !== 'working')).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'again 4' }] },
    });
  });

  test('the TTL: the alarm forgets the task, aborts its handler (task-expired) and deletes the storage', async () => {
    const { state, storage, kv } = fakeState();
    const p = probe();
    const { handler, store } = objectHandler(state, p, { tasks: { ttlMs: 50 } });
    const { taskId } = (await call(handler, 'tools/call', { name: 'work', arguments: { n: 4 } }))
      .message.result;
    await p.started.promise;
    // The alarm is due at the TTL, before the heartbeat.
    expect(storage.alarm).toBe(expiresAt(kv, taskId));
    // When it fires (fired by hand once its time has come).
    await within(
      new Promise<void>((resolve) => {
        const check = () => (Date.now() >= (storage.alarm ?? 0) ? resolve() : setTimeout(check, 5));
        check();
      }),
      'the TTL',
    );
    await store.alarm();
    expect(await within(p.aborted.promise, 'the abort')).toBe('task-expired');
    expect(kv.size).toBe(0);
    expect(storage.deletedAll).toBe(1);
    expect(storage.alarm).toBeNull();
    const gone = await call(handler, 'tasks/get', { taskId });
    expect(gone.message.error).toMatchObject({ code: -32602 });
    p.release.resolve();
  });

  test('list and countActive read a binding, newest first; forget drops ended tasks of a binding', () => {
    const { state } = fakeState();
    const store = new DurableObjectTaskStore(state);
    const now = Date.now();
    const base = {
      status: 'working' as const,
      updatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 1000,
      expiresAt: now + 60_000,
      tool: 'work',
      issuedKeys: [],
      runner: 'r',
    };
    for (const [i, binding] of ['p:a', 'p:a', 's:x', 'p:a'].entries())
      store.create({ ...base, id: `t${i}`, binding, createdAt: now + i });
    store.update('t1', { status: 'completed', result: { content: [] } });
    store.update('t2', { status: 'cancelled' });
    expect(store.countActive('p:a')).toBe(2);
    const page = store.list('p:a', undefined, 2);
    expect(page.records.map((r) => r.id)).toEqual(['t3', 't1']);
    expect(store.list('p:a', page.nextCursor, 2)).toEqual({
      records: [expect.objectContaining({ id: 't0' })],
    });
    // A terminal task never changes again.
    expect(store.update('t1', { status: 'failed' })?.status).toBe('completed');
    store.forget('s:x');
    expect(store.get('t2')).toBeUndefined();
    expect(store.usage()).toEqual({ tasks: 3, active: 2 });
    store.forget('p:a');
    expect(store.usage()).toEqual({ tasks: 2, active: 2 });
  });
});

describe('one alarm for the session and the tasks', () => {
  test('the session ends: its record goes, the object keeps a principal-less task until its TTL', async () => {
    const { state, storage, kv } = fakeState();
    const p = probe();
    const { handler, alarm } = objectHandler(state, p, {
      tasks: { ttlMs: 60_000 },
      legacy: true,
    });
    const session = await openSession(handler, '2025-06-18');
    expect(kv.has('mcp-session')).toBe(true);
    // A modern task in the same object (a task is no session's: no binding to lose).
    const { taskId } = (await call(handler, 'tools/call', { name: 'work', arguments: { n: 5 } }))
      .message.result;
    await p.started.promise;
    const deleted = await handler.fetch(
      new Request('http://localhost/mcp', {
        method: 'DELETE',
        headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      }),
    );
    expect(deleted.status).toBe(200);
    expect(kv.has('mcp-session')).toBe(false);
    // The task is still there, and so is the storage.
    expect(storage.deletedAll).toBe(0);
    expect(kv.get(`mcp-task:${taskId}`)).toMatchObject({ status: 'working' });
    // The alarm is still there for the task (its heartbeat).
    expect(storage.alarm).not.toBeNull();
    p.release.resolve();
    await poll(handler, taskId, (s) => s === 'completed');
    await alarm.fire();
    expect(storage.deletedAll).toBe(0);
    expect(storage.alarm).toBe(expiresAt(kv, taskId));
  });

  test('an idle session is reaped by the shared alarm; with no task left the storage goes', async () => {
    const { state, storage, kv } = fakeState();
    const alarm = new ObjectAlarm(state);
    const manager = new SessionManager({
      store: new DurableObjectSessionStore(state, { alarm }),
      idleTimeoutMs: 20,
    });
    new DurableObjectTaskStore(state, { alarm });
    const closed = deferred<string | undefined>();
    const handler = createMcpHandler(taskServer(probe()), {
      sessions: manager,
      eventStore: false,
      onSessionClose: (event) => closed.resolve(event.reason),
    });
    await openSession(handler, '2025-06-18');
    expect(storage.alarm).not.toBeNull();
    await within(
      new Promise<void>((resolve) => {
        const check = () => (Date.now() >= (storage.alarm ?? 0) ? resolve() : setTimeout(check, 5));
        check();
      }),
      'the idle time',
    );
    await alarm.fire();
    expect(await closed.promise).toBe('session-expired');
    expect(kv.size).toBe(0);
    expect(storage.deletedAll).toBe(1);
    expect(storage.alarm).toBeNull();
  });
});

/** A namespace stand-in: which object got which request. */
function fakeNamespace() {
  const calls: Array<{ object: string; request: Request; body: string }> = [];
  let next = 0;
  const namespace: DurableObjectNamespace = {
    newUniqueId: () => {
      const id = (++next).toString(16).padStart(64, 'b');
      return { toString: () => id };
    },
    idFromString: (id: string) => {
      if (!/^[0-9a-f]{64}$/.test(id) || id.startsWith('0')) throw new TypeError('not ours');
      return { toString: () => id };
    },
    idFromName: () => {
      throw new Error('unused');
    },
    get: (id) => ({
      fetch: async (request: Request) => {
        calls.push({ object: id.toString(), request, body: await request.text() });
        return Response.json({ object: id.toString() });
      },
    }),
  };
  return { namespace, calls };
}

describe('createSessionWorker with tasks', () => {
  function worker(withTasks: boolean) {
    const { namespace, calls } = fakeNamespace();
    const ready = probe();
    ready.release.resolve();
    const server = taskServer(ready);
    const built: unknown[] = [];
    const entry = createSessionWorker({
      sessions: () => namespace,
      tasks: withTasks ? () => ({ server }) : undefined,
      auth: (request) =>
        request.headers.get('authorization') === 'Bearer alice'
          ? { principal: 'alice', scopes: [] }
          : undefined,
      build: (_env, isolate) => {
        built.push(isolate);
        return createMcpHandler(server, { ...WORKERD_HANDLER_OPTIONS, ...isolate });
      },
    });
    const send = (init: RequestInit) =>
      entry.fetch(new Request('http://localhost/mcp', init), {}, { waitUntil: () => {} });
    return { send, calls, built };
  }
  const callWork = (options = {}) =>
    modern('tools/call', { name: 'work', arguments: { n: 1 } }, options);

  test('a call that may become a task goes to a new object, as it came, with the principal', async () => {
    const { send, calls, built } = worker(true);
    const answer = await send(
      callWork({ ...DECLARED, headers: { authorization: 'Bearer alice' } }),
    );
    expect(built).toEqual([{ tasks: {} }]);
    expect(await answer.json()).toEqual({ object: calls[0]?.object });
    expect(calls).toHaveLength(1);
    const sent = JSON.parse(calls[0]?.body ?? '');
    expect(sent.params).toMatchObject({ name: 'work', arguments: { n: 1 } });
    expect(
      JSON.parse(decodeURIComponent(calls[0]?.request.headers.get(PRINCIPAL_HEADER) ?? '')),
    ).toMatchObject({ principal: 'alice' });
    // Another such call: another object.
    await send(callWork(DECLARED));
    expect(calls[1]?.object).not.toBe(calls[0]?.object);
  });

  test('a call that cannot become a task is served in the isolate', async () => {
    const { send, calls } = worker(true);
    // Not declared: a plain call (the optional tool runs at once, in the isolate).
    const undeclared = await readAnswer(await send(callWork()));
    expect(undeclared.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'worked 1' }],
    });
    // A tool without taskSupport never goes to an object either.
    const plain = await readAnswer(
      await send(modern('tools/call', { name: 'plain', arguments: {} }, DECLARED)),
    );
    expect(plain.message.result).toMatchObject({ resultType: 'complete' });
    expect(calls).toEqual([]);
  });

  test('tasks/* go to the object the id in Mcp-Name names; an id no object can hold stays in the isolate', async () => {
    const { send, calls } = worker(true);
    const taskId = `${'c'.repeat(64)}.${'d'.repeat(32)}`;
    await send(modern('tasks/get', { taskId }, DECLARED));
    await send(modern('tasks/cancel', { taskId }, DECLARED));
    expect(calls.map((c) => c.object)).toEqual(['c'.repeat(64), 'c'.repeat(64)]);
    for (const bad of ['nope', `${'0'.repeat(64)}.${'d'.repeat(32)}`]) {
      const declared = await readAnswer(await send(modern('tasks/get', { taskId: bad }, DECLARED)));
      expect(declared.status).toBe(200);
      expect(declared.message.error).toMatchObject({ code: -32602 });
      const undeclared = await readAnswer(await send(modern('tasks/get', { taskId: bad })));
      expect(undeclared.status).toBe(400);
      expect(undeclared.message.error).toMatchObject({ code: -32021 });
    }
    expect(calls).toHaveLength(2);
  });

  test('Base64-encoded routing headers: the body decides', async () => {
    const { send, calls } = worker(true);
    const encoded = `=?base64?${btoa('tools/call')}?=`;
    await send(callWork({ ...DECLARED, headers: { 'mcp-method': encoded } }));
    expect(calls).toHaveLength(1);
  });

  test('without tasks: the isolate does not offer them and task tools run as plain calls', async () => {
    const { send, calls, built } = worker(false);
    const discover = await readAnswer(await send(modern('server/discover', {}, DECLARED)));
    expect(built).toEqual([{ tasks: false }]);
    expect(discover.message.result.capabilities.extensions).toBeUndefined();
    const plain = await readAnswer(
      await send(modern('tools/call', { name: 'plain', arguments: {} }, DECLARED)),
    );
    expect(plain.message.result).toMatchObject({ resultType: 'complete' });
    const get = await readAnswer(
      await send(modern('tasks/get', { taskId: `${'c'.repeat(64)}.x` }, DECLARED)),
    );
    expect(get.message.error).toMatchObject({ code: -32601 });
    expect(calls).toEqual([]);
  });

  test('legacy session requests still go to their session object', async () => {
    const { send, calls } = worker(true);
    const session = `${'e'.repeat(64)}.${'f'.repeat(32)}`;
    await send(legacy('tools/call', { name: 'work', arguments: { n: 1 }, task: {} }, session));
    expect(calls.map((c) => c.object)).toEqual(['e'.repeat(64)]);
  });
});

describe('taskRoute', () => {
  const server = taskServer(probe());
  const headers = (method: string, name?: string) =>
    new Headers({ 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) });
  const message = (name: string, declared: boolean) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      _meta: {
        'io.modelcontextprotocol/clientCapabilities': declared ? DECLARED.capabilities : {},
      },
    },
  });

  test('tools/call: only a task tool, only when declared; the body is read only for a task tool', () => {
    expect(taskRoute(server, headers('tools/call', 'work'))).toEqual({ kind: 'read-body' });
    expect(taskRoute(server, headers('tools/call', 'plain'))).toBeUndefined();
    expect(taskRoute(server, headers('tools/call', 'work'), message('work', true))).toEqual({
      kind: 'call',
    });
    expect(
      taskRoute(server, headers('tools/call', 'work'), message('work', false)),
    ).toBeUndefined();
    expect(
      taskRoute(server, headers('tools/call', 'work'), message('plain', true)),
    ).toBeUndefined();
    expect(taskRoute(server, headers('tools/list'))).toBeUndefined();
    expect(taskRoute(server, new Headers())).toBeUndefined();
  });

  test('tasks/*: by Mcp-Name', () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      expect(taskRoute(server, headers(method, 'abc'))).toEqual({ kind: 'task', taskId: 'abc' });
    expect(taskRoute(server, headers('tasks/get'))).toBeUndefined();
    expect(taskRoute(server, headers('tasks/result', 'abc'))).toBeUndefined();
  });

  test('a listen that follows tasks: where its first task lives (from the body)', () => {
    const listen = (notifications: unknown) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { notifications },
    });
    const asked = headers('subscriptions/listen');
    expect(taskRoute(server, asked)).toEqual({ kind: 'read-body' });
    expect(taskRoute(server, asked, listen({ taskIds: [7, 'abc', 'def'] }))).toEqual({
      kind: 'task',
      taskId: 'abc',
    });
    expect(taskRoute(server, asked, listen({ toolsListChanged: true }))).toBeUndefined();
    expect(taskRoute(server, asked, listen({ taskIds: [] }))).toBeUndefined();
  });
});
