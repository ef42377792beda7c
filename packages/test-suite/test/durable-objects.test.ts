import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLIENT_INFO,
  legacy,
  legacyGet,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { afterAll, describe, expect, test } from 'vitest';
import { running, waitForLog } from '../src/suite/wait.ts';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { Target } from '../src/targets/types.ts';

/** Legacy JSON-RPC over a session; the answer read to its end (JSON, or the messages of an SSE one). */
async function rpc(
  target: Target,
  session: string,
  method: string,
  params?: Record<string, unknown>,
  version = '2025-06-18',
) {
  return readAnswer(await fetch(target.mcpUrl, legacy(method, params, session, { version })));
}

function get(target: Target, session: string, lastEventId?: string): Promise<Response> {
  return fetch(target.mcpUrl, legacyGet(session, lastEventId));
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
      session = await openSession(target.mcpUrl, '2025-06-18', { roots: { listChanged: true } });
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
        clientInfo: CLIENT_INFO,
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
    // The busy session's call is running before the idle session is even opened, so no slow
    // start through wrangler dev can leave busy idle for a window; the call lasts three windows.
    const idleMs = 5000;
    const sleepMs = 3 * idleMs;
    const target = await workerdTarget('suite', { vars: { IDLE_MS: String(idleMs) } });
    try {
      const busy = await openSession(target.mcpUrl, '2025-06-18');
      const call = fetch(
        target.mcpUrl,
        legacy('tools/call', { name: 'sleep', arguments: { ms: sleepMs } }, busy, {
          id: 'busy-call',
          version: '2025-06-18',
        }),
      );
      // On workerd the answer streams from the start (streamAfterMs 0): its headers mean the call
      // is running in the session's object.
      await running(target.url, call);
      const idle = await openSession(target.mcpUrl, '2025-06-18');
      await waitForLog(
        target.log,
        (l) => l.kind === 'session-close' && l.sessionId === idle,
        4 * idleMs,
      );
      const log = await target.log();
      expect(log.filter((l) => l.kind === 'session-close')).toEqual([
        expect.objectContaining({ sessionId: idle, reason: 'session-expired' }),
      ]);
      // A whole idle window passed with the call still running (its log line comes when it ends).
      expect(log.filter((l) => l.id === 'busy-call')).toEqual([]);
      expect((await rpc(target, idle, 'ping')).status).toBe(404);
      // The busy one finished its call: it was never reaped underneath it.
      expect((await readAnswer(await call)).message.result.content[0].text).toBe(
        `slept ${sleepMs} ms`,
      );
      await waitForLog(
        target.log,
        (l) => l.kind === 'session-close' && l.sessionId === busy && l.reason === 'session-expired',
        4 * idleMs,
      );
    } finally {
      await target.stop();
    }
  }, 120_000);

  test('the operator can end every session of the deployment', async () => {
    const target = await workerdTarget('suite');
    try {
      const sessions = await Promise.all(
        [1, 2, 3].map(() => openSession(target.mcpUrl, '2025-06-18')),
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
      const session = await openSession(target.mcpUrl, '2025-11-25');
      const flood = await rpc(
        target,
        session,
        'tools/call',
        { name: 'flood', arguments: { count: 3000 }, _meta: { progressToken: 'f' } },
        '2025-11-25',
      );
      // 3,000 progress notifications written in one go: what the client had not read yet was
      // coalesced (the newest kept), while the store kept its bounded share of all of them.
      expect(flood.notifications.length).toBeGreaterThan(100);
      expect(flood.notifications.at(-1)?.params?.progress).toBe(3000);
      // On behalf of a principal that does not own it, the session is not there at all.
      const foreign = await (await fetch(`${target.url}/__inspect/${session}?as=bob`)).json();
      expect([foreign.session, foreign.events]).toEqual([undefined, 0]);
      expect(
        await (await fetch(`${target.url}/__close/${session}?as=bob`, { method: 'POST' })).json(),
      ).toEqual({ closed: false });
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
