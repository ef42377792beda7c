/**
 * Session caps on workerd through wrangler dev (issue 22): the session Worker admits every
 * `initialize` through the SessionRegistry object (the `sessionLimits` option), against the
 * deployment's cap (`maxSessions`, from MAX_SESSIONS) and each principal's quota
 * (`maxSessionsPerPrincipal`, from SESSION_QUOTA); and, with the registry given to the session
 * objects, a principal's running tasks across every object (`tasks.maxActivePerPrincipal`, from
 * TASK_QUOTA). Clients are told apart by CF-Connecting-IP, which
 * Cloudflare sets itself and miniflare keeps when a client sends it.
 */
import {
  initializeParams,
  legacy,
  legacyGet,
  modern,
  notification,
  readAnswer,
  until,
} from '@edge-mcp/test-kit';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RATE_PROBE } from '../src/fixture.ts';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { Target } from '../src/targets/types.ts';

const VERSION = '2025-06-18';

function from(ip: string): Record<string, string> {
  return { 'cf-connecting-ip': ip };
}

/** An initialize from `ip` (and its `initialized` when it opened a session). */
async function open(target: Target, ip: string) {
  const response = await fetch(
    target.mcpUrl,
    legacy('initialize', initializeParams(VERSION), undefined, { headers: from(ip) }),
  );
  const retryAfter = response.headers.get('retry-after');
  const answer = await readAnswer(response);
  const session = response.headers.get('mcp-session-id') ?? undefined;
  if (session !== undefined)
    await (
      await fetch(
        target.mcpUrl,
        notification('notifications/initialized', undefined, session, {
          version: VERSION,
          headers: from(ip),
        }),
      )
    ).text();
  return { status: answer.status, session, message: answer.message, retryAfter };
}

async function opened(target: Target, ip: string): Promise<string> {
  const { status, session, message } = await open(target, ip);
  if (session === undefined) throw new Error(`initialize: ${status} ${JSON.stringify(message)}`);
  return session;
}

/** 200 while the session lives, 404 once it is gone. */
async function ping(target: Target, session: string): Promise<number> {
  const response = await fetch(
    target.mcpUrl,
    legacy('ping', undefined, session, { version: VERSION }),
  );
  await response.text();
  return response.status;
}

/** A GET stream held open: the session is busy until `close()`. */
async function hold(target: Target, session: string) {
  const controller = new AbortController();
  const response = await fetch(
    target.mcpUrl,
    legacyGet(session, undefined, { version: VERSION, signal: controller.signal }),
  );
  expect(response.status).toBe(200);
  return () => controller.abort();
}

/**
 * A fresh deployment per test, with a quota of 2 per client and 4 sessions in all: a stream a
 * test let go is noticed by workerd only at its next keep-alive write, so sessions of an earlier
 * test could still count as busy.
 */
let target: Target;
beforeEach(async () => {
  target = await workerdTarget('suite', {
    vars: { SESSION_QUOTA: '2', MAX_SESSIONS: '4', TASK_QUOTA: '2' },
  });
}, 120_000);
afterEach(() => target?.stop());

describe('session caps in Durable Objects (workerd through wrangler dev)', () => {
  test('a principal at its quota evicts its own idle session, and is refused when all are busy', async () => {
    const first = await opened(target, '10.0.0.1');
    const second = await opened(target, '10.0.0.1');
    const third = await opened(target, '10.0.0.1');
    // The oldest idle session of the same client made room; the others live.
    expect(await ping(target, first)).toBe(404);
    expect(await ping(target, second)).toBe(200);
    expect(await ping(target, third)).toBe(200);
    const releases = [await hold(target, second), await hold(target, third)];
    try {
      const refused = await open(target, '10.0.0.1');
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.message.error).toMatchObject({ code: -32000 });
      expect(refused.message.id).toBeDefined();
      // Another client is not held to this one's quota.
      expect(await ping(target, await opened(target, '10.0.0.2'))).toBe(200);
    } finally {
      for (const release of releases) release();
    }
    for (const session of [second, third]) expect(await ping(target, session)).toBe(200);
  }, 120_000);

  test('racing initializes of one client never pass its quota', async () => {
    const sessions = await Promise.all(
      Array.from({ length: 6 }, () => open(target, '10.0.0.3').then((r) => r.session)),
    );
    const live: string[] = [];
    for (const session of sessions)
      if (session !== undefined && (await ping(target, session)) === 200) live.push(session);
    expect(live.length).toBeGreaterThan(0);
    expect(live.length).toBeLessThanOrEqual(2);
  }, 120_000);

  test("at the deployment's cap an idle session makes room; a busy one never does", async () => {
    // Fill the cap (4) with sessions of clients under their quota, two of them busy.
    const a = await opened(target, '10.0.1.1');
    const b = await opened(target, '10.0.1.2');
    const c = await opened(target, '10.0.1.3');
    const d = await opened(target, '10.0.1.4');
    const releases = [await hold(target, a), await hold(target, b)];
    try {
      // Newcomers evict the idle ones, oldest first (c, then d), until only busy ones are left.
      for (let i = 0; i < 3; i++) {
        const newcomer = await open(target, `10.0.2.${i}`);
        if (newcomer.status !== 200) {
          expect(newcomer.status).toBe(503);
          expect(newcomer.retryAfter).toBe('1');
          break;
        }
        await hold(target, newcomer.session as string).then((release) => releases.push(release));
      }
      expect(await ping(target, a)).toBe(200);
      expect(await ping(target, b)).toBe(200);
      expect(await ping(target, c)).toBe(404);
      expect(await ping(target, d)).toBe(404);
      const full = await open(target, '10.0.3.1');
      expect(full.status).toBe(503);
      expect(full.message.error).toMatchObject({ code: -32603 });
    } finally {
      for (const release of releases) release();
    }
  }, 120_000);

  test('anonymous clients are told apart by their address, in the isolate and in the objects', async () => {
    const call = { name: RATE_PROBE.tool, arguments: {} };
    const inIsolate = async (ip: string) => {
      const answer = await fetch(target.mcpUrl, modern('tools/call', call, { headers: from(ip) }));
      await answer.text();
      return answer.status;
    };
    const inSession = async (ip: string, session: string) => {
      const init = legacy('tools/call', call, session, { version: VERSION, headers: from(ip) });
      const answer = await fetch(target.mcpUrl, init);
      await answer.text();
      return answer.status;
    };
    for (let i = 0; i < RATE_PROBE.burst; i++) expect(await inIsolate('10.0.5.1')).toBe(200);
    expect(await inIsolate('10.0.5.1')).toBe(429);
    // The same client in its session's object: the same principal, the same bucket.
    expect(await inSession('10.0.5.1', await opened(target, '10.0.5.1'))).toBe(429);
    // Another client has buckets of its own in both places (before, every anonymous client on
    // Cloudflare was one principal).
    expect(await inIsolate('10.0.5.2')).toBe(200);
    expect(await inSession('10.0.5.2', await opened(target, '10.0.5.2'))).toBe(200);
  }, 120_000);

  test("a principal's running tasks are counted across every object; past its quota a call runs without one", async () => {
    const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const rpc = async (ip: string, method: string, params: Record<string, unknown>) =>
      (
        await readAnswer(
          await fetch(target.mcpUrl, modern(method, params, { ...TASKS, headers: from(ip) })),
        )
      ).message;
    const sleep = (ip: string, ms: number) =>
      rpc(ip, 'tools/call', { name: 'task_sleep', arguments: { ms } }).then(
        (message) => message.result,
      );
    // Two tasks, each in an object of its own, fill the quota (2) of 10.0.7.1.
    const held = [await sleep('10.0.7.1', 60_000), await sleep('10.0.7.1', 60_000)];
    for (const task of held) expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    // A third runs as a plain call (the tool allows both), in yet another object.
    expect(await sleep('10.0.7.1', 10)).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'slept 10 ms' }],
    });
    // Another client is not held to that quota.
    expect(await sleep('10.0.7.2', 10)).toMatchObject({ resultType: 'task' });
    // A task that ends gives its place back: cancelled, the next call of 10.0.7.1 is a task again.
    await rpc('10.0.7.1', 'tasks/cancel', { taskId: held[0].taskId });
    // The end reaches the registry just after the cancel is answered: ask until it has.
    const next = await until(
      async () => {
        const result = await sleep('10.0.7.1', 10);
        return result.resultType === 'task' && result;
      },
      'a task of 10.0.7.1 again',
      10_000,
      0,
    );
    expect(next).toMatchObject({ resultType: 'task' });
    await rpc('10.0.7.1', 'tasks/cancel', { taskId: held[1].taskId });
  }, 120_000);
});
