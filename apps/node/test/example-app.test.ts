import { afterEach, describe, expect, test } from 'vitest';
import { type AppProcess, modernInit, sseMessages, startApp } from './helpers.ts';

let app: AppProcess | undefined;

afterEach(async () => {
  if (app && app.child.exitCode === null && app.child.signalCode === null) {
    app.child.kill('SIGKILL');
    await app.exited;
  }
  app = undefined;
});

describe('the example app on Node', () => {
  test('serves the Hono health route next to /mcp', async () => {
    app = await startApp();
    const health = await fetch(`${app.url}/health`);
    expect(await health.json()).toMatchObject({ ok: true, runtime: 'node' });
    const discover = await fetch(`${app.url}/mcp`, modernInit('server/discover', {}, 1));
    const body = await discover.json();
    expect(body.result.supportedVersions).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
    ]);
    await expect(app.waitForLog((l) => l.method === 'server/discover')).resolves.toMatchObject({
      outcome: 'ok',
      name: null,
    });
  });

  test('the bug report: sleep 5000, the client drops after 1 s, the handler is cancelled with reason disconnect', async () => {
    app = await startApp();
    const client = new AbortController();
    const response = await fetch(`${app.url}/mcp`, {
      ...modernInit('tools/call', { name: 'sleep', arguments: { ms: 5000 } }, 7, {
        progressToken: 'p',
      }),
      signal: client.signal,
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // The sleep tool reports progress each second: drop the connection on the 1 s report.
    for await (const message of sseMessages(response)) {
      if (message.params?.progress === 1000) break;
    }
    client.abort();
    const line = await app.waitForLog((l) => l.id === 7);
    expect(line).toMatchObject({
      method: 'tools/call',
      name: 'sleep',
      outcome: 'cancelled',
      reason: 'disconnect',
    });
    // Cancelled at the drop (~1 s), long before the 5 s of work could have ended.
    expect(line.ms as number).toBeGreaterThanOrEqual(1000);
    expect(line.ms as number).toBeLessThan(4000);
    // The line is written when the handler settled: it ended by its abort, not by finishing its work.
    expect(app.log.filter((l) => l.id === 7)).toHaveLength(1);
  }, 20_000);

  test('SIGTERM with 100 in-flight calls and 10 listen streams: all cancelled, streams completed, the process exits by itself', async () => {
    app = await startApp();
    const url = `${app.url}/mcp`;
    const calls = Array.from({ length: 100 }, (_, i) =>
      fetch(
        url,
        modernInit('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, `call-${i}`),
      ).then(
        async (r) => ({ status: r.status, text: await r.text() }),
        (error: unknown) => ({ status: 0, text: String(error) }),
      ),
    );
    const listens = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(
          url,
          modernInit(
            'subscriptions/listen',
            { notifications: { toolsListChanged: true } },
            `listen-${i}`,
          ),
        ),
      ),
    );
    const streams = listens.map(async (response) => {
      const messages = [];
      for await (const message of sseMessages(response)) messages.push(message);
      return messages;
    });
    // Every call is running once /health counts 110 in flight.
    await expect
      .poll(async () => (await (await fetch(`${app?.url}/health`)).json()).inFlight, {
        interval: 20,
        timeout: 20_000,
      })
      .toBe(110);
    app.child.kill('SIGTERM');
    const exit = await app.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    for (const [i, messages] of (await Promise.all(streams)).entries()) {
      expect(messages[0]?.method).toBe('notifications/subscriptions/acknowledged');
      expect(messages.at(-1)).toMatchObject({
        id: `listen-${i}`,
        result: { resultType: 'complete' },
      });
    }
    for (const call of await Promise.all(calls)) expect(call.status).toBe(503);
    const cancelled = app.log.filter((l) => l.outcome === 'cancelled' && l.reason === 'shutdown');
    expect(cancelled).toHaveLength(110);
  }, 30_000);

  test('SIGTERM with 1,000 legacy sessions (some mid-call, some with open GET streams): all closed, the process exits by itself', async () => {
    app = await startApp();
    const url = `${app.url}/mcp`;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const sessions: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const opened = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const init = {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: `c${batch}-${i}`, version: '1' },
            },
          };
          const response = await fetch(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(init),
          });
          await response.text();
          return response.headers.get('mcp-session-id') as string;
        }),
      );
      sessions.push(...opened);
    }
    expect(new Set(sessions).size).toBe(1000);
    const sessionHeaders = (id: string) => ({
      ...headers,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    });
    // 50 sessions mid-call, 50 with an open GET stream.
    const calls = sessions.slice(0, 50).map((id) =>
      fetch(url, {
        method: 'POST',
        headers: sessionHeaders(id),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'sleep', arguments: { ms: 60_000 } },
        }),
      }).then(
        async (r) => r.status,
        () => 0,
      ),
    );
    const streams = await Promise.all(
      sessions
        .slice(50, 100)
        .map((id) =>
          fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } }),
        ),
    );
    const ended = streams.map(async (response) => {
      for await (const _ of sseMessages(response)) {
        // drain until the server ends the stream
      }
      return true;
    });
    await expect
      .poll(
        async () => {
          const { inFlight, sessions, openStreams } = await (
            await fetch(`${app?.url}/health`)
          ).json();
          return { inFlight, sessions, openStreams };
        },
        { interval: 20, timeout: 20_000 },
      )
      .toEqual({ inFlight: 50, sessions: 1000, openStreams: 50 });
    app.child.kill('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(await Promise.all(ended)).toEqual(Array(50).fill(true));
    for (const status of await Promise.all(calls)) expect(status).toBe(503);
    const shutdown = app.log.filter((l) => l.event === 'session-close' && l.reason === 'shutdown');
    expect(shutdown).toHaveLength(1000);
  }, 60_000);
});
