/**
 * One smoke test of the example app as `pnpm start` runs it. What the app serves is tested by the
 * shared suite (packages/test-suite), which runs against Node in-process twice; the Node adapter's
 * signal handling by packages/adapters (node-child.test.ts).
 */
import { legacyGet, modern, openSession, readAnswer, SseReader } from '@edge-mcp/test-kit';
import { afterEach, expect, test } from 'vitest';
import { type AppProcess, startApp } from './helpers.ts';

let app: AppProcess | undefined;

afterEach(async () => {
  if (app && app.child.exitCode === null && app.child.signalCode === null) {
    app.child.kill('SIGKILL');
    await app.exited;
  }
  app = undefined;
});

test('pnpm start: /health and a tools/call answer and are logged; SIGTERM ends the running call and the open session, and the process exits with 0', async () => {
  app = await startApp();
  const { url } = app;
  expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ ok: true, runtime: 'node' });
  const echo = await readAnswer(
    await fetch(
      `${url}/mcp`,
      modern('tools/call', { name: 'echo', arguments: { text: 'hi' } }, { id: 'echo' }),
    ),
  );
  expect(echo.message.result.content).toEqual([{ type: 'text', text: 'hi' }]);
  await expect(app.waitForLog((l) => l.id === 'echo')).resolves.toMatchObject({
    method: 'tools/call',
    name: 'echo',
    outcome: 'ok',
  });

  // Work that would keep a careless server up: a call that sleeps for a minute, and a legacy
  // session with its GET stream open.
  const sleep = fetch(
    `${url}/mcp`,
    modern('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, { id: 'sleep' }),
  );
  const session = await openSession(`${url}/mcp`);
  const stream = new SseReader(await fetch(`${url}/mcp`, legacyGet(session)));
  await expect
    .poll(
      async () => {
        const { inFlight, sessions, openStreams } = await (await fetch(`${url}/health`)).json();
        return { inFlight, sessions, openStreams };
      },
      { interval: 20, timeout: 10_000 },
    )
    .toEqual({ inFlight: 1, sessions: 1, openStreams: 1 });
  app.child.kill('SIGTERM');
  expect(await app.exited).toEqual({ code: 0, signal: null });
  expect((await sleep).status).toBe(503);
  await stream.rest(); // the server ended it
  expect(app.log.find((l) => l.id === 'sleep')).toMatchObject({
    outcome: 'cancelled',
    reason: 'shutdown',
  });
  expect(app.log.find((l) => l.event === 'session-close')).toMatchObject({
    sessionId: session,
    reason: 'shutdown',
  });
}, 30_000);
