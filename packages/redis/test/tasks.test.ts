/**
 * `RedisTaskStore` (issue 14 item 4, issue 15): the store on a real redis-server,
 * then two or three handlers in this process sharing it, as instances of one server would.
 */

import { type AuthInfo, McpError, type McpHandler } from '@edge-mcp/core';
import type { TaskHost, TaskRecord } from '@edge-mcp/core/tasks';
import {
  aborted,
  initializeParams,
  legacyRequest,
  modernRequest,
  notificationRequest,
  readAnswer,
  SseReader,
  sleep,
} from '@edge-mcp/test-kit';
import { startRedis } from '@edge-mcp/test-kit/node';
import { describe, expect, test } from 'vitest';
import type { RedisContext } from '../src/backend.ts';
import { SESSION_FIELDS } from '../src/keys.ts';
import { decodeCursor, encodeCursor } from '../src/task-cursor.ts';
import { RedisTaskStore } from '../src/task-store.ts';
import { namespace, taskRecord, until } from './helpers.ts';
import { call, connect, type Node, nodes, poll, redis, WITH_TASKS } from './support/task-nodes.ts';

// ---------------------------------------------------------------------------------------------
// The store alone

interface Member {
  context: RedisContext;
  store: RedisTaskStore;
  changed: string[];
  expired: string[];
}

/** Instances of one namespace, each with a store bound to a host that records what it is told. */
async function members(count: number, ns = namespace()): Promise<Member[]> {
  const made: Member[] = [];
  for (let i = 0; i < count; i++) {
    let store: RedisTaskStore | undefined;
    const context = await connect(redis().url, ns, () => store?.close() ?? Promise.resolve());
    store = new RedisTaskStore(context);
    const member: Member = { context, store, changed: [], expired: [] };
    const host: TaskHost = {
      expired: (id) => member.expired.push(id),
      changed: (id) => member.changed.push(id),
    };
    store.bind(host);
    made.push(member);
  }
  return made;
}

describe('RedisTaskStore', () => {
  test('create is visible to every instance at once; a record is JSON expiring at expiresAt', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    expect(a.store.exclusive).toBe(false);
    expect(a.store.runner).toBe(a.context.instance.tag);
    const task = taskRecord(a.store.runner, { sessionId: 'S1' });
    await a.store.create(task);
    expect(await b.store.get(task.id)).toEqual(task);
    const { keys, connection } = a.context;
    const pexpire = (await connection.command(['PEXPIRETIME', keys.task(task.id)])) as number;
    expect(pexpire).toBe(task.expiresAt);
    expect(await connection.command(['HMGET', keys.task(task.id), 'ver', 'st', 'rn', 'b'])).toEqual(
      ['1', 'working', a.store.runner, 'p:alice'],
    );
    expect(await b.store.get('nope')).toBeUndefined();
    await expect(a.store.create(task)).rejects.toThrow(/exists/);
  });

  test('update never changes a terminal task: the first terminal write wins, a cancel stays a cancel', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const task = taskRecord(a.store.runner);
    await a.store.create(task);
    const cancelled = await b.store.update(task.id, { status: 'cancelled' });
    expect(cancelled?.status).toBe('cancelled');
    // The runner's cached version is stale and its settle comes late: refused, the cancel stays.
    const late = await a.store.update(task.id, {
      status: 'completed',
      result: { content: [] },
    });
    expect(late?.status).toBe('cancelled');
    expect(late?.result).toBeUndefined();
    expect((await a.store.update(task.id, { statusMessage: 'x' }))?.statusMessage).toBeUndefined();
    expect(await a.store.update('unknown', { status: 'failed' })).toBeUndefined();
  });

  test('two terminal writers racing: exactly one wins, both are answered with the winner', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const winners: string[] = [];
    for (let round = 0; round < 30; round++) {
      const task = taskRecord(a.store.runner);
      await a.store.create(task);
      // b has never read it (a read first), a has it cached: both orders happen.
      const [x, y] = await Promise.all([
        a.store.update(task.id, { status: 'completed', result: { content: [] } }),
        b.store.update(task.id, { status: 'cancelled' }),
      ]);
      expect(x?.status).toBe(y?.status);
      expect(x).toEqual(y);
      const stored = await a.context.connection.command([
        'HMGET',
        a.context.keys.task(task.id),
        'ver',
        'st',
      ]);
      expect(stored).toEqual(['2', x?.status]);
      winners.push(x?.status as string);
    }
    expect(winners.every((s) => s === 'completed' || s === 'cancelled')).toBe(true);
  });

  test('compare-and-set: a stale version is merged again onto the newer record, no write is lost', async () => {
    const [a, b, c] = (await members(3)) as [Member, Member, Member];
    const task = taskRecord(a.store.runner);
    await a.store.create(task);
    await b.store.update(task.id, { statusMessage: 'from b' });
    const before = a.context.connection.stats().roundTrips;
    const merged = await a.store.update(task.id, { issuedKeys: ['k'] });
    // Its cached version lost (one script), the retry on what b left won (one more).
    expect(a.context.connection.stats().roundTrips - before).toBe(2);
    expect(merged).toMatchObject({ statusMessage: 'from b', issuedKeys: ['k'] });
    // Thirty writers on three instances, each setting a field of its own, all at once.
    const writers = [a, b, c];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        writers[i % 3]?.store.update(task.id, { [`f${i}`]: i } as Partial<TaskRecord>),
      ),
    );
    const final = (await c.store.get(task.id)) as unknown as Record<string, unknown>;
    for (let i = 0; i < 30; i++) expect(final[`f${i}`]).toBe(i);
    expect(await a.context.connection.command(['HGET', a.context.keys.task(task.id), 'ver'])).toBe(
      String(2 + 1 + 30),
    );
  });

  test('a change is told to the runner, the watchers and the session home only, never to its writer', async () => {
    const [a, b, c, d, e] = (await members(5)) as [Member, Member, Member, Member, Member];
    const { keys, connection } = a.context;
    await connection.command(['HSET', keys.session('S1'), SESSION_FIELDS.home, e.store.runner]);
    const task = taskRecord(a.store.runner, { sessionId: 'S1' });
    await a.store.create(task);
    // The session's home hears of a task created for it.
    await until(() => e.changed.length === 1, 'the home told of the create');
    // c reads it unfinished: c watches it from now on.
    expect((await c.store.get(task.id))?.status).toBe('working');
    expect(c.store.stats().watching).toBe(1);
    await b.store.update(task.id, { statusMessage: 'b wrote' });
    await until(() => a.changed.length === 1 && c.changed.length === 1, 'runner and watcher');
    await until(() => e.changed.length === 2, 'the home');
    // The runner's own write: the watcher and the home, not the runner.
    await a.store.update(task.id, { statusMessage: 'a wrote' });
    await until(() => c.changed.length === 2 && e.changed.length === 3, 'watcher and home');
    await a.store.update(task.id, { status: 'completed', result: { content: [] } });
    await until(() => c.changed.length === 3 && e.changed.length === 4, 'the end');
    // The barrier: a change of a second task that a, b and d all hear of, after the first's
    // (one inbox per instance, in the order Redis ran the writes). Anything more of the first
    // task would have come before it.
    const second = taskRecord(a.store.runner);
    await a.store.create(second);
    await b.store.get(second.id);
    await d.store.get(second.id);
    await c.store.update(second.id, { statusMessage: 'barrier' });
    await until(
      () => [a, b, d].every((member) => member.changed.includes(second.id)),
      'the second task’s change',
    );
    expect(a.changed).toEqual([task.id, second.id]);
    expect(b.changed).toEqual([second.id]);
    expect(d.changed).toEqual([second.id]);
    // A terminal task has no watchers left: nothing changes it again.
    expect(await connection.command(['HKEYS', keys.task(task.id)])).not.toContain(
      `w:${c.store.runner}`,
    );
    // d heard of the barrier only.
    expect(d.context.bus.stats().received).toBe(1);
  });

  test('a watcher that died is dropped by the next write; a live one that missed it is kept', async () => {
    const [a, b, c] = (await members(3)) as [Member, Member, Member];
    const task = taskRecord(a.store.runner);
    await a.store.create(task);
    await b.store.get(task.id);
    await c.store.get(task.id);
    const { keys, connection } = a.context;
    expect(await connection.command(['HKEYS', keys.task(task.id)])).toEqual(
      expect.arrayContaining([`w:${b.store.runner}`, `w:${c.store.runner}`]),
    );
    // b is gone (no liveness key, no subscriber); c only stops listening for a moment.
    await b.context.instance.stop();
    await b.context.bus.close();
    await c.context.bus.close();
    await a.store.update(task.id, { statusMessage: 'x' });
    const fields = await connection.command(['HKEYS', keys.task(task.id)]);
    expect(fields).not.toContain(`w:${b.store.runner}`);
    expect(fields).toContain(`w:${c.store.runner}`);
  });

  test('alive(runner) is the liveness key; a get brings it along for an unfinished task', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const task = taskRecord(a.store.runner);
    await a.store.create(task);
    await b.store.get(task.id);
    const before = b.context.connection.stats().roundTrips;
    expect(await b.store.alive(a.store.runner)).toBe(true);
    expect(b.context.connection.stats().roundTrips).toBe(before);
    expect(await b.store.alive('zzzzzzzzzz')).toBe(false);
    await a.context.instance.stop();
    await b.store.get(task.id);
    expect(await b.store.alive(a.store.runner)).toBe(false);
    expect(await a.store.alive(a.store.runner)).toBe(true);
  });

  test('list: a binding newest first, a page at a time, with an opaque cursor it validates', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const base = Date.now();
    const made: TaskRecord[] = [];
    for (let i = 0; i < 7; i++) {
      // Two pairs created in the same millisecond.
      const at = base + [0, 1, 1, 2, 3, 3, 4][i]!;
      const task = taskRecord((i % 2 ? a : b).store.runner, { createdAt: at, updatedAt: at });
      await (i % 2 ? a : b).store.create(task);
      made.push(task);
    }
    await a.store.create(taskRecord(a.store.runner, { binding: 'p:bob' }));
    // One expired before anyone listed it: left out, and dropped from the list.
    const gone = taskRecord(a.store.runner, { createdAt: base + 2, expiresAt: Date.now() - 1 });
    await a.store.create(gone);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await b.store.list('p:alice', cursor, 2);
      pages++;
      for (const r of page.records) {
        expect(r.binding).toBe('p:alice');
        seen.push(r.id);
      }
      cursor = page.nextCursor;
      if (cursor !== undefined) expect(cursor).toMatch(/^\d+$/);
    } while (cursor !== undefined);
    expect(pages).toBe(4);
    const newestFirst = [...made].sort(
      (x, y) => y.createdAt - x.createdAt || (y.id > x.id ? 1 : -1),
    );
    expect(seen).toEqual(newestFirst.map((r) => r.id));
    expect(
      await a.context.connection.command(['ZSCORE', a.context.keys.taskList('p:alice'), gone.id]),
    ).toBeNull();
    // Cursors: made for one binding only, and checked.
    const first = await a.store.list('p:alice', undefined, 3);
    const next = first.nextCursor as string;
    await expect(a.store.list('p:bob', next, 3)).rejects.toMatchObject({ code: -32602 });
    await expect(a.store.list('p:alice', `${next}0`, 3)).rejects.toBeInstanceOf(McpError);
    await expect(a.store.list('p:alice', '12345', 3)).rejects.toMatchObject({ code: -32602 });
    const tampered = `${next.slice(0, -1)}${next.endsWith('1') ? '2' : '1'}`;
    await expect(a.store.list('p:alice', tampered, 3)).rejects.toMatchObject({ code: -32602 });
    // The cursor's own task expired since: the page goes on below its time.
    const last = first.records[2] as TaskRecord;
    await a.context.connection.command(['DEL', a.context.keys.task(last.id)]);
    const after = await a.store.list('p:alice', next, 10);
    expect(after.records.map((r) => r.id)).toEqual(
      newestFirst.filter((r) => r.createdAt < last.createdAt).map((r) => r.id),
    );
    expect(decodeCursor('p:x', encodeCursor('p:x', { createdAt: 5, id: 'ü-é' }))).toEqual({
      createdAt: 5,
      id: 'ü-é',
    });
  });

  test('countActive: unfinished tasks of a binding whose runner lives', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const tasks = [
      taskRecord(a.store.runner),
      taskRecord(a.store.runner),
      taskRecord(b.store.runner),
    ];
    for (const [i, task] of tasks.entries()) await (i < 2 ? a : b).store.create(task);
    await a.store.create(taskRecord(a.store.runner, { binding: 'p:bob' }));
    expect(await b.store.countActive('p:alice')).toBe(3);
    await b.store.update(tasks[0]!.id, { status: 'completed', result: { content: [] } });
    expect(await b.store.countActive('p:alice')).toBe(2);
    expect(await b.store.countActive('p:bob')).toBe(1);
    await a.context.instance.stop();
    expect(await b.store.countActive('p:alice')).toBe(1);
    expect(await b.store.countActive('p:carol')).toBe(0);
  });

  test('the TTL: the runner is told at expiresAt; the heartbeat takes it off the indexes', async () => {
    const [a, b] = (await members(2)) as [Member, Member];
    const task = taskRecord(a.store.runner, { expiresAt: Date.now() + 300 });
    await a.store.create(task);
    expect(a.store.stats().running).toBe(1);
    await until(() => a.expired.length === 1, 'expired on the runner');
    expect(a.expired).toEqual([task.id]);
    expect(b.expired).toEqual([]);
    expect(await b.store.get(task.id)).toBeUndefined();
    const { keys, connection } = a.context;
    await until(async () => (await connection.command(['ZCARD', keys.tasks])) === 0, 'the sweep');
    expect(await connection.command(['EXISTS', keys.taskList('p:alice')])).toBe(0);
    expect(await connection.command(['EXISTS', keys.taskActive('p:alice')])).toBe(0);
    expect(a.store.stats().running).toBe(0);
  });
});

describe('handlers on several instances sharing a RedisTaskStore', () => {
  test('a task created on A is polled on B to its result', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const started = a.started();
    const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
      .message.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await started;
    expect((await poll(b.handler, created.taskId, () => true)).status).toBe('working');
    a.release();
    const done = await poll(b.handler, created.taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe('computed');
    await until(() => a.handler.stats().tasks === 0, 'A idle');
  });

  test('tasks/cancel on B aborts the handler on A (task-cancelled); it ends cancelled', async () => {
    const [a, b, c] = (await nodes(3)) as [Node, Node, Node];
    const started = a.started();
    const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
      .message.result;
    const signal = await started;
    const ack = await call(b.handler, 'tasks/cancel', { taskId: created.taskId });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    expect(await aborted(signal, 2000)).toMatchObject({ type: 'task-cancelled' });
    expect((await poll(c.handler, created.taskId, () => true)).status).toBe('cancelled');
    await until(() => a.handler.stats().tasks === 0, 'A idle');
    // The handler's own end came after the cancel: refused, the task stays cancelled.
    expect((await poll(a.handler, created.taskId, () => true)).status).toBe('cancelled');
  });

  test('tasks/update on B answers the input the task on A waits for; C gets the result', async () => {
    const [a, b, c] = (await nodes(3)) as [Node, Node, Node];
    const created = (await call(a.handler, 'tools/call', { name: 'question', arguments: {} }))
      .message.result;
    const waiting = await poll(c.handler, created.taskId, (s) => s === 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['name']);
    const ack = await call(b.handler, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    const done = await poll(c.handler, created.taskId, (s) => s === 'completed');
    expect(done.result.content[0].text).toBe('answered Ada');
  });

  test('a runner that died (no heartbeat, no liveness key): its task, which may not run again, reads failed (instance-lost), never working', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const started = a.started();
    const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
      .message.result;
    const signal = await started;
    expect((await poll(b.handler, created.taskId, () => true)).status).toBe('working');
    // What SIGKILL leaves: the heartbeat stops and the liveness key lapses.
    await a.context.instance.stop();
    const failed = await poll(b.handler, created.taskId, () => true);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ data: { reason: 'instance-lost' } });
    expect((await poll(b.handler, created.taskId, () => true)).status).toBe('failed');
    // A still listened: its handler was told the task ended.
    expect(await aborted(signal, 2000)).toMatchObject({ type: 'task-cancelled' });
  });

  test('the TTL: the handler on A aborts (task-expired) and B answers -32602', async () => {
    const [a, b] = (await nodes(2, {}, { ttlMs: 400 })) as [Node, Node];
    const started = a.started();
    const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
      .message.result;
    expect(created.ttlMs).toBe(400);
    const signal = await started;
    expect((await poll(b.handler, created.taskId, () => true)).status).toBe('working');
    expect(await aborted(signal, 2000)).toMatchObject({ type: 'task-expired' });
    const answer = await call(b.handler, 'tasks/get', { taskId: created.taskId });
    expect(answer.message.error.code).toBe(-32602);
    await until(() => a.handler.stats().tasks === 0, 'A idle');
  });

  test("another principal's task is not found on any instance", async () => {
    const TOKENS: Record<string, AuthInfo> = {
      alice: { principal: 'alice', scopes: [] },
      bob: { principal: 'bob', scopes: [] },
    };
    const as = (token: string) => ({
      ...WITH_TASKS,
      headers: { authorization: `Bearer ${token}` },
    });
    const [a, b] = (await nodes(2, {
      auth: {
        verify: (token) => TOKENS[token],
        resource: 'http://localhost/mcp',
        authorizationServers: ['http://127.0.0.1:9000'],
      },
    })) as [Node, Node];
    const created = (
      await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }, as('alice'))
    ).message.result;
    for (const [method, params] of [
      ['tasks/get', { taskId: created.taskId }],
      ['tasks/update', { taskId: created.taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId: created.taskId }],
    ] as const) {
      const answer = await call(b.handler, method, params, as('bob'));
      expect(answer.message.error.code).toBe(-32602);
    }
    expect((await poll(b.handler, created.taskId, () => true, as('alice'))).status).toBe('working');
  });

  test('maxActivePerPrincipal counts the unfinished tasks of every instance', async () => {
    const [a, b, c] = (await nodes(3, {}, { maxActivePerPrincipal: 2 })) as [Node, Node, Node];
    const first = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} })).message
      .result;
    expect(first.resultType).toBe('task');
    const second = await call(b.handler, 'tools/call', { name: 'compute', arguments: {} });
    expect(second.message.result.resultType).toBe('task');
    const third = await call(c.handler, 'tools/call', { name: 'compute', arguments: {} });
    expect(third.status).toBe(429);
    expect(third.message.error.code).toBe(-32000);
    await call(c.handler, 'tasks/cancel', { taskId: first.taskId });
    const fourth = await call(c.handler, 'tools/call', { name: 'compute', arguments: {} });
    expect(fourth.message.result.resultType).toBe('task');
  });

  test('maxActivePerPrincipal holds under a race: calls at once on three instances create no more than the limit', async () => {
    const [a, b, c] = (await nodes(3, {}, { maxActivePerPrincipal: 5 })) as [Node, Node, Node];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call([a, b, c][i % 3]?.handler as McpHandler, 'tools/call', {
          name: 'compute',
          arguments: {},
        }),
      ),
    );
    // Before, each instance counted then created: 182 tasks against a limit of 100.
    const tasks = answers.filter((answer) => answer.message.result?.resultType === 'task');
    expect(tasks).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(25);
  });

  test('2025-11-25 tasks/list: one principal’s tasks from every instance, newest first, by pages', async () => {
    const auth = { authorization: 'Bearer alice' };
    const version = '2025-11-25';
    const [a, b] = (await nodes(2, {
      pageSize: 2,
      auth: {
        verify: (token) => (token === 'alice' ? { principal: 'alice', scopes: [] } : undefined),
        resource: 'http://localhost/mcp',
        authorizationServers: ['http://127.0.0.1:9000'],
      },
    })) as [Node, Node];
    const open = async (handler: McpHandler) => {
      const response = await handler.fetch(
        legacyRequest('initialize', initializeParams(version, {}), undefined, { headers: auth }),
      );
      await response.text();
      const session = response.headers.get('mcp-session-id') as string;
      await handler.fetch(
        notificationRequest('notifications/initialized', undefined, session, {
          version,
          headers: auth,
        }),
      );
      return session;
    };
    const rpc = async (
      handler: McpHandler,
      session: string,
      method: string,
      params: Record<string, unknown>,
    ) =>
      (
        await readAnswer(
          await handler.fetch(legacyRequest(method, params, session, { version, headers: auth })),
        )
      ).message;
    const onA = await open(a.handler);
    const onB = await open(b.handler);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [handler, session] = i % 2 ? [b.handler, onB] : [a.handler, onA];
      const answer = await rpc(handler, session, 'tools/call', {
        name: 'compute',
        arguments: {},
        task: {},
      });
      made.unshift(answer.result.task.taskId);
      // A listing is newest first by `createdAt` (milliseconds): no two tasks may share one.
      await sleep(2);
    }
    const listed: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await rpc(b.handler, onB, 'tasks/list', cursor === undefined ? {} : { cursor });
      pages++;
      listed.push(...page.result.tasks.map((t: { taskId: string }) => t.taskId));
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    expect(listed).toEqual(made);
    expect(pages).toBe(3);
    const bad = await rpc(a.handler, onA, 'tasks/list', { cursor: '123456789' });
    expect(bad.error.code).toBe(-32602);
  });

  test('a listen stream on B following a task on A hears its changes (B watches it)', async () => {
    const [a, b] = (await nodes(2)) as [Node, Node];
    const started = a.started();
    const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
      .message.result;
    await started;
    const listen = new SseReader(
      await b.handler.fetch(
        modernRequest(
          'subscriptions/listen',
          { notifications: { taskIds: [created.taskId] } },
          WITH_TASKS,
        ),
      ),
    );
    const [ack] = await listen.messages(1);
    expect(ack?.params.notifications).toEqual({ taskIds: [created.taskId] });
    expect(b.store.stats().watching).toBe(1);
    a.release();
    const done = await listen.until(
      (m) => m.method === 'notifications/tasks' && m.params.status === 'completed',
    );
    expect(done.params.taskId).toBe(created.taskId);
    await listen.cancel();
  });

  test('no message storm: only the runner and the watchers hear of a change', async () => {
    const [a, b, c] = (await nodes(3)) as [Node, Node, Node];
    const created = (await call(a.handler, 'tools/call', { name: 'question', arguments: {} }))
      .message.result;
    await poll(b.handler, created.taskId, (s) => s === 'input_required');
    await call(b.handler, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    await poll(b.handler, created.taskId, (s) => s === 'completed');
    // C never touched the task: it heard nothing, and read nothing.
    expect(c.context.bus.stats().received).toBe(0);
    expect(a.context.bus.stats().received).toBeGreaterThan(0);
  });
});

describe('Redis unreachable', () => {
  test('503 with Retry-After while it is down; a task that ended meanwhile is written once it is back', async () => {
    const server = await startRedis({ persist: true, args: ['--appendfsync', 'always'] });
    try {
      const [a, b] = (await nodes(2, {}, {}, server.url)) as [Node, Node];
      const started = a.started();
      const created = (await call(a.handler, 'tools/call', { name: 'compute', arguments: {} }))
        .message.result;
      await started;
      await server.kill();
      await until(() => !b.context.connection.available, 'B notices');
      const response = await b.handler.fetch(
        modernRequest('tasks/get', { taskId: created.taskId }, WITH_TASKS),
      );
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect((await readAnswer(response)).message.error).toMatchObject({ code: -32000 });
      const refused = await call(b.handler, 'tools/call', { name: 'compute', arguments: {} });
      expect(refused.status).toBe(503);
      // The handler on A ends while Redis is away: its result waits on A.
      a.release();
      await until(() => a.store.stats().unwritten === 1, 'queued on A');
      await server.start();
      // 503s until B is connected again, then the result A wrote once it was.
      const done = await until(
        async () => {
          const got = await call(b.handler, 'tasks/get', { taskId: created.taskId });
          return got.message.result?.status === 'completed' && got.message.result;
        },
        'the result',
        15_000,
      );
      expect(done.result.content[0].text).toBe('computed');
      await until(() => a.store.stats().unwritten === 0, 'nothing left to write on A');
    } finally {
      await server.stop();
    }
  }, 30_000);
});
