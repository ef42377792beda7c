import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { initialize, legacy, SseReader, waitForLog } from '../src/suite/http.ts';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { Target } from '../src/targets/types.ts';

/** Legacy JSON-RPC over a session; returns the parsed answer (JSON, or the last SSE message). */
async function rpc(
  target: Target,
  session: string,
  method: string,
  params?: Record<string, unknown>,
  version = '2025-06-18',
) {
  const response = await fetch(target.mcpUrl, legacy(method, params, session, { version }));
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const messages = await new SseReader(response).rest();
    return {
      status: response.status,
      message: messages.at(-1) ?? {},
      notifications: messages.slice(0, -1),
    };
  }
  return {
    status: response.status,
    message: response.status === 200 ? await response.json() : {},
    notifications: [],
  };
}

function get(target: Target, session: string, lastEventId?: string): Promise<Response> {
  return fetch(target.mcpUrl, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('Durable Object sessions (workerd through wrangler dev)', () => {
  test('a session outlives a restart of the dev server with all its state, and its stream resumes', async () => {
    const persistTo = mkdtempSync(join(tmpdir(), 'edge-mcp-do-'));
    dirs.push(persistTo);
    let target = await workerdTarget('suite', { persistTo });
    let session: string;
    let seenId: string | undefined;
    try {
      ({ session } = (await initialize(target.mcpUrl, '2025-06-18', {
        roots: { listChanged: true },
      })) as { session: string });
      expect(session).toMatch(/^[0-9a-f]{64}\.[0-9a-f]{32}$/);
      expect(
        (await rpc(target, session, 'logging/setLevel', { level: 'error' })).message.result,
      ).toEqual({});
      expect(
        (await rpc(target, session, 'resources/subscribe', { uri: 'notes://welcome' })).message
          .result,
      ).toEqual({});
      expect(
        (await rpc(target, session, 'tools/call', { name: 'tally', arguments: { add: 5 } })).message
          .result.structuredContent,
      ).toEqual({ sum: 5 });
      const stream = new SseReader(await get(target, session));
      await rpc(target, session, 'tools/call', { name: 'touch' });
      await rpc(target, session, 'tools/call', { name: 'touch' });
      seenId = (await stream.message())?._eventId;
      expect(seenId).toBeDefined();
      await stream.cancel();
    } finally {
      await target.stop();
    }

    target = await workerdTarget('suite', { persistTo });
    try {
      const who = JSON.parse(
        (await rpc(target, session, 'tools/call', { name: 'whoami' })).message.result.content[0]
          .text,
      );
      expect(who).toMatchObject({
        protocolVersion: '2025-06-18',
        clientInfo: { name: 'suite' },
        clientCapabilities: { roots: { listChanged: true } },
        session,
      });
      expect(
        (await rpc(target, session, 'tools/call', { name: 'tally', arguments: { add: 1 } })).message
          .result.structuredContent,
      ).toEqual({ sum: 6 });
      // The log level survived: info is filtered, error goes out.
      expect(
        (await rpc(target, session, 'tools/call', { name: 'say', arguments: { level: 'info' } }))
          .notifications,
      ).toEqual([]);
      const loud = await rpc(target, session, 'tools/call', {
        name: 'say',
        arguments: { level: 'error' },
      });
      expect(loud.notifications.map((n) => n.params?.level)).toEqual(['error']);
      // The event log survived: the second list_changed is replayed after the first's id.
      const resumed = new SseReader(await get(target, session, seenId));
      expect((await resumed.message())?.method).toBe('notifications/tools/list_changed');
      // The subscription survived: an update of the subscribed URI arrives, another does not.
      await rpc(target, session, 'tools/call', {
        name: 'poke',
        arguments: { uri: 'notes://other' },
      });
      await rpc(target, session, 'tools/call', {
        name: 'poke',
        arguments: { uri: 'notes://welcome' },
      });
      expect(await resumed.message()).toMatchObject({
        method: 'notifications/resources/updated',
        params: { uri: 'notes://welcome' },
      });
      await resumed.cancel();
    } finally {
      await target.stop();
    }
  }, 180_000);

  test('the idle alarm reaps an idle session but not one with a call in flight', async () => {
    const target = await workerdTarget('suite', { vars: { IDLE_MS: '1000' } });
    try {
      const idle = (await initialize(target.mcpUrl, '2025-06-18')).session as string;
      const busy = (await initialize(target.mcpUrl, '2025-06-18')).session as string;
      const call = rpc(target, busy, 'tools/call', { name: 'sleep', arguments: { ms: 4000 } });
      await waitForLog(
        target.log,
        (l) => l.kind === 'session-close' && l.sessionId === idle,
        20_000,
      );
      const closes = (await target.log()).filter((l) => l.kind === 'session-close');
      expect(closes).toEqual([
        expect.objectContaining({ sessionId: idle, reason: 'session-expired' }),
      ]);
      expect((await rpc(target, idle, 'ping')).status).toBe(404);
      // The busy one finished its call: it was never reaped underneath it.
      expect((await call).message.result.content[0].text).toBe('slept 4000 ms');
      await waitForLog(
        target.log,
        (l) => l.kind === 'session-close' && l.sessionId === busy && l.reason === 'session-expired',
        20_000,
      );
    } finally {
      await target.stop();
    }
  }, 120_000);

  test('the operator can end every session of the deployment', async () => {
    const target = await workerdTarget('suite');
    try {
      const sessions = await Promise.all(
        [1, 2, 3].map(
          async () => (await initialize(target.mcpUrl, '2025-06-18')).session as string,
        ),
      );
      await rpc(target, sessions[0] as string, 'ping');
      expect(await (await fetch(`${target.url}/__close-all`, { method: 'POST' })).json()).toEqual({
        closed: 3,
      });
      for (const session of sessions) expect((await rpc(target, session, 'ping')).status).toBe(404);
      for (const session of sessions) {
        await waitForLog(
          target.log,
          (l) => l.kind === 'session-close' && l.sessionId === session && l.reason === 'shutdown',
        );
      }
      // The registry forgot them: a second sweep ends nothing.
      expect(await (await fetch(`${target.url}/__close-all`, { method: 'POST' })).json()).toEqual({
        closed: 0,
      });
    } finally {
      await target.stop();
    }
  }, 120_000);

  test('storage stays within its bound under a long stream; the operator can close a session', async () => {
    const target = await workerdTarget('suite');
    try {
      const session = (await initialize(target.mcpUrl, '2025-11-25')).session as string;
      const flood = await rpc(
        target,
        session,
        'tools/call',
        { name: 'flood', arguments: { count: 3000 }, _meta: { progressToken: 'f' } },
        '2025-11-25',
      );
      expect(flood.notifications).toHaveLength(3000);
      const usage = await (await fetch(`${target.url}/__inspect/${session}`)).json();
      expect(usage.session).toBe(session);
      expect(usage.events).toBeLessThanOrEqual(1000);
      expect(usage.events).toBeGreaterThan(800);
      expect(usage.bytes).toBeLessThanOrEqual(1024 * 1024);
      expect(
        await (await fetch(`${target.url}/__close/${session}`, { method: 'POST' })).json(),
      ).toEqual({ closed: true });
      expect((await rpc(target, session, 'ping')).status).toBe(404);
      await waitForLog(
        target.log,
        (l) => l.kind === 'session-close' && l.sessionId === session && l.reason === 'shutdown',
      );
    } finally {
      await target.stop();
    }
  }, 120_000);
});
