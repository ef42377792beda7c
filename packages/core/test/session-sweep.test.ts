/**
 * The idle sweep (issue 25, item 3): it walks only the sessions it ends (the table is kept in the
 * order sessions went idle), and a mass expiry is ended in batches, each in a turn of its own, so
 * a million sessions timing out together never hold the event loop for long.
 */
import { openSession } from '@edge-mcp/test-kit';
import { afterEach, expect, test, vi } from 'vitest';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { SessionManager } from '../src/sessions.ts';

afterEach(() => {
  vi.useRealTimers();
});

test('a mass expiry is ended 1,000 sessions a turn, oldest first, none early', async () => {
  vi.useFakeTimers();
  const idleTimeoutMs = 1_000;
  // One client opens them all: its quota is lifted so that none is evicted.
  const sessions = new SessionManager({ idleTimeoutMs, maxSessionsPerPrincipal: 10_000 });
  const closed: string[] = [];
  const handler = createMcpHandler(new McpServer({ name: 'sweep', version: '1' }), {
    sessions,
    onSessionClose: (event) => closed.push(event.sessionId),
  });
  const early: string[] = [];
  for (let i = 0; i < 1_200; i++) early.push(await openSession(handler));
  vi.advanceTimersByTime(500);
  const late: string[] = [];
  for (let i = 0; i < 1_300; i++) late.push(await openSession(handler));
  // The sweep ticks every 100 ms; the first 1,200 are due at 1 s.
  while (sessions.reaped === 0) vi.advanceTimersToNextTimer();
  expect(sessions.reaped).toBe(1_000);
  expect(closed).toEqual(early.slice(0, 1_000));
  vi.advanceTimersToNextTimer();
  // The rest of the due ones in the next turn; the later ones are not due yet.
  expect(closed).toEqual(early);
  expect(sessions.reaped).toBe(1_200);
  while (sessions.reaped < 2_500) vi.advanceTimersToNextTimer();
  expect(closed).toEqual([...early, ...late]);
  await handler.close();
});

test('a turn of the sweep stops after its time slice when ends are slow, and goes on in the next', async () => {
  vi.useFakeTimers();
  const sessions = new SessionManager({ idleTimeoutMs: 1_000, maxSessionsPerPrincipal: 1_000 });
  const closed: string[] = [];
  const handler = createMcpHandler(new McpServer({ name: 'sweep', version: '1' }), {
    sessions,
    // Each end takes a millisecond of the clock, so a 4 ms slice holds far fewer than a batch.
    onSessionClose: (event) => {
      closed.push(event.sessionId);
      vi.setSystemTime(Date.now() + 1);
    },
  });
  const opened: string[] = [];
  for (let i = 0; i < 100; i++) opened.push(await openSession(handler));
  while (sessions.reaped === 0) vi.advanceTimersToNextTimer();
  const first = sessions.reaped;
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThan(100);
  expect(closed).toEqual(opened.slice(0, first));
  vi.advanceTimersToNextTimer();
  expect(sessions.reaped).toBeGreaterThan(first);
  while (sessions.reaped < 100) vi.advanceTimersToNextTimer();
  expect(closed).toEqual(opened);
  await handler.close();
});
