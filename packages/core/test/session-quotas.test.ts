/**
 * Sessions per principal (issue 22): one principal opening sessions as fast as it can evicts
 * its own longest-idle ones, never another principal's; a principal whose sessions are all busy
 * gets 429; the cap of the whole manager still evicts only sessions with nothing running.
 */
import { initializeParams, LEGACY, legacyRequest, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createMcpHandler, type McpHandler, McpServer } from '../src/index.ts';
import { SessionManager } from '../src/sessions.ts';

function setup(maxSessions: number, maxSessionsPerPrincipal: number) {
  const server = new McpServer({ name: 'quotas', version: '1' });
  const releases: Array<() => void> = [];
  server.tool('echo', {}, () => 'echo');
  server.tool(
    'hold',
    {},
    () => new Promise<string>((resolve) => releases.push(() => resolve('held'))),
  );
  const handler = createMcpHandler(server, {
    sessions: new SessionManager({ maxSessions, maxSessionsPerPrincipal }),
    auth: {
      verify: (token) => ({ principal: token, scopes: [] }),
      resource: 'http://127.0.0.1:8787/mcp',
      authorizationServers: ['http://127.0.0.1:9'],
    },
  });
  return { handler, releases };
}

const as = (who: string) => ({ headers: { authorization: `Bearer ${who}` } });

/** `initialize` as `who`: the session id, or the refusal's status. */
async function open(handler: McpHandler, who: string): Promise<string | number> {
  const answer = await handler.fetch(
    legacyRequest('initialize', initializeParams(LEGACY), undefined, as(who)),
  );
  const id = answer.headers.get('mcp-session-id');
  await answer.text();
  return id ?? answer.status;
}

/** The status of a `tools/call echo` on `session` as `who` (404 once the session is gone). */
async function alive(handler: McpHandler, session: string, who: string): Promise<number> {
  const answer = await handler.fetch(
    legacyRequest('tools/call', { name: 'echo' }, session, { ...as(who), version: LEGACY }),
  );
  await answer.text();
  return answer.status;
}

describe('sessions per principal', () => {
  test("a principal over its quota evicts its own longest-idle session, not another principal's", async () => {
    const { handler } = setup(100, 2);
    const alice = (await open(handler, 'alice')) as string;
    const [m1, m2] = [await open(handler, 'mallory'), await open(handler, 'mallory')];
    for (let i = 0; i < 20; i++) expect(typeof (await open(handler, 'mallory'))).toBe('string');
    expect(await alive(handler, alice, 'alice')).toBe(200);
    expect(await alive(handler, m1 as string, 'mallory')).toBe(404);
    expect(await alive(handler, m2 as string, 'mallory')).toBe(404);
    expect(handler.stats().sessions).toBe(3);
    await handler.close();
  });

  test('a principal whose sessions are all busy gets 429; others still open theirs', async () => {
    const { handler, releases } = setup(100, 2);
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 2; i++) {
      const session = (await open(handler, 'mallory')) as string;
      calls.push(
        handler
          .fetch(
            legacyRequest('tools/call', { name: 'hold' }, session, {
              ...as('mallory'),
              version: LEGACY,
            }),
          )
          .then(readAnswer),
      );
    }
    await expect.poll(() => releases.length).toBe(2);
    expect(await open(handler, 'mallory')).toBe(429);
    expect(typeof (await open(handler, 'alice'))).toBe('string');
    for (const release of releases) release();
    await Promise.all(calls);
    await handler.close();
  });

  test("at the manager's cap, a principal under its quota evicts the longest-idle session of anyone; busy ones stay", async () => {
    const { handler, releases } = setup(3, 2);
    const busy = (await open(handler, 'bob')) as string;
    const call = handler
      .fetch(legacyRequest('tools/call', { name: 'hold' }, busy, { ...as('bob'), version: LEGACY }))
      .then(readAnswer);
    await expect.poll(() => releases.length).toBe(1);
    const idle = (await open(handler, 'mallory')) as string;
    await open(handler, 'alice');
    // Full: carol (under her quota) takes the place of the longest-idle session, mallory's.
    expect(typeof (await open(handler, 'carol'))).toBe('string');
    expect(await alive(handler, idle, 'mallory')).toBe(404);
    releases[0]?.();
    await call;
    expect(await alive(handler, busy, 'bob')).toBe(200);
    await handler.close();
  });
});
