/**
 * Sessions per principal across instances (issue 22): the quota is counted in Redis by the create
 * script, so instances racing each other cannot overshoot it; a principal at its quota evicts its
 * own idle session, never another principal's, and gets 429 while all of its sessions are busy.
 */
import {
  initializeParams,
  legacyGetRequest,
  legacyRequest,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { until, useRedis } from './helpers.ts';
import { type Node, startNodes } from './support/handlers.ts';

const V = '2025-11-25';
const redis = useRedis();

const auth = {
  verify: (token: string) => ({ principal: token, scopes: [] }),
  resource: 'http://127.0.0.1:8787/mcp',
  authorizationServers: ['http://127.0.0.1:9'],
};
const as = (who: string) => ({ headers: { authorization: `Bearer ${who}` }, version: V });

/** `initialize` as `who` on `node`: the session id, or the refusal's status and error code. */
async function open(node: Node, who: string): Promise<string | { status: number; code: number }> {
  const answer = await node.handler.fetch(
    legacyRequest('initialize', initializeParams(V), undefined, {
      headers: as(who).headers,
    }),
  );
  const id = answer.headers.get('mcp-session-id');
  if (id !== null) {
    await answer.text();
    return id;
  }
  return { status: answer.status, code: (await readAnswer(answer)).message.error?.code };
}

/** The status of a `ping` in `session` as `who` (404 once the session is gone). */
async function alive(node: Node, session: string, who: string): Promise<number> {
  const answer = await node.handler.fetch(legacyRequest('ping', {}, session, as(who)));
  await answer.text();
  return answer.status;
}

describe('sessions per principal, in Redis', () => {
  test('instances racing cannot overshoot the quota: 9 initializes at once on 3 instances, quota 2', async () => {
    // A long heartbeat: sessions this young count as busy, so none of the racing ones is evicted.
    const nodes = await startNodes(redis().url, {
      redis: { maxSessionsPerPrincipal: 2, heartbeatMs: 5000 },
      options: { auth },
    });
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => open(nodes[i % 3] as Node, 'mallory')),
    );
    const opened = results.filter((r): r is string => typeof r === 'string');
    expect(opened).toHaveLength(2);
    expect(results.filter((r) => typeof r !== 'string')).toEqual(
      Array.from({ length: 7 }, () => ({ status: 429, code: -32000 })),
    );
    // Another principal is not pushed out.
    expect(typeof (await open(nodes[0] as Node, 'alice'))).toBe('string');
    for (const id of opened) expect(await alive(nodes[1] as Node, id, 'mallory')).toBe(200);
  });

  test("at its quota a principal evicts its own idle session on any instance, never another principal's", async () => {
    const [a, b, c] = (await startNodes(redis().url, {
      redis: { maxSessionsPerPrincipal: 2, heartbeatMs: 200 },
      options: { auth },
    })) as [Node, Node, Node];
    const alice = (await open(c, 'alice')) as string;
    const one = (await open(a, 'mallory')) as string;
    const two = (await open(b, 'mallory')) as string;
    // Both of mallory's sessions hold a stream: neither may be evicted.
    const streams = [
      new SseReader(await a.handler.fetch(legacyGetRequest(one, undefined, as('mallory')))),
      new SseReader(await b.handler.fetch(legacyGetRequest(two, undefined, as('mallory')))),
    ];
    for (const stream of streams) await stream.next();
    expect(await open(c, 'mallory')).toEqual({ status: 429, code: -32000 });
    // Once the first stream is gone, that session goes idle and is the one to make room.
    await streams[0]?.cancel();
    const three = await until(async () => {
      const result = await open(c, 'mallory');
      return typeof result === 'string' ? result : undefined;
    }, 'an initialize that evicts the idle session');
    expect(c.closes.map((e) => [e.sessionId, e.reason])).toEqual([[one, 'session-evicted']]);
    expect(await alive(a, one, 'mallory')).toBe(404);
    expect(await alive(b, two, 'mallory')).toBe(200);
    expect(await alive(c, three, 'mallory')).toBe(200);
    expect(await alive(a, alice, 'alice')).toBe(200);
    expect(await c.cluster.clusterStats()).toMatchObject({ sessions: 3 });
    await streams[1]?.cancel();
  });

  test('ids whose record expired without a script do not count: the set is cleaned at the quota', async () => {
    const [a] = (await startNodes(redis().url, {
      count: 1,
      redis: { maxSessionsPerPrincipal: 2 },
      options: { auth },
    })) as [Node];
    const set = a.context.keys.principalSessions('mallory');
    await a.context.connection.command(['SADD', set, 'ghost-1', 'ghost-2']);
    const fresh = (await open(a, 'mallory')) as string;
    expect(typeof fresh).toBe('string');
    expect(await a.context.connection.command(['SMEMBERS', set])).toEqual([fresh]);
    expect(a.closes).toEqual([]);
  });
});
