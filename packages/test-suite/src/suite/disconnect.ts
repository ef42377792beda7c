import { request as httpRequest } from 'node:http';
import { initialize, legacy, legacyGet, modern, SseReader } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current, TargetCaps } from '../targets/types.ts';
import { running, waitForLog } from './wait.ts';

/** A request sent by one client library, and how that client drops it. */
interface Dropped {
  /** Settles when the answer's headers arrive (or the request fails). */
  answer: Promise<unknown>;
  drop(): void;
}

/** Node's `fetch` (undici), dropped with its AbortController. */
function withFetch(url: string, init: RequestInit): Dropped {
  const client = new AbortController();
  const answer = fetch(url, { ...init, signal: client.signal });
  answer.catch(() => {});
  return { answer, drop: () => client.abort() };
}

/** `node:http`, dropped with `req.destroy()`. */
function withNodeHttp(url: string, init: RequestInit): Dropped {
  const req = httpRequest(url, {
    method: 'POST',
    headers: init.headers as Record<string, string>,
  });
  const answer = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
  });
  answer.catch(() => {});
  req.end(init.body as string);
  return { answer, drop: () => req.destroy() };
}

/** Beyond a target's bound: the log is polled, and a loaded 2-core machine is slow to answer. */
const MARGIN_MS = 5_000;

export function disconnect(current: Current, caps: TargetCaps): void {
  describe('disconnect cancels', () => {
    test('the bug report: a 2026-07-28 sleep whose client drops is aborted with reason disconnect, long before it would end', async () => {
      const { mcpUrl } = current.target;
      const client = new AbortController();
      const response = await fetch(
        mcpUrl,
        modern(
          'tools/call',
          { name: 'sleep', arguments: { ms: 30_000 } },
          { id: 'drop-modern', meta: { progressToken: 't' }, signal: client.signal },
        ),
      );
      const reader = new SseReader(response);
      expect((await reader.message())?.method).toBe('notifications/progress');
      const dropped = Date.now();
      client.abort();
      const line = await waitForLog(current.target.log, (l) => l.id === 'drop-modern', 20_000);
      const noticed = Date.now() - dropped;
      expect(line).toMatchObject({
        method: 'tools/call',
        name: 'sleep',
        outcome: 'cancelled',
        reason: 'disconnect',
      });
      // Noticed within the runtime's bound (plus a margin no loaded machine breaks), far from 30 s.
      expect(noticed).toBeLessThan(caps.disconnectBoundMs + 10_000);
    });

    test.each([
      ['fetch (AbortController)', withFetch],
      ['node:http (req.destroy())', withNodeHttp],
    ] as const)(
      'a silent 2026-07-28 call (no progress token, nothing written yet) dropped by %s is cancelled with reason disconnect within the runtime bound',
      async (name, send) => {
        const { mcpUrl, url } = current.target;
        const id = `silent-${name.split(' ')[0]}`;
        const call = send(
          mcpUrl,
          modern('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, { id }),
        );
        await running(url, call.answer);
        const dropped = Date.now();
        call.drop();
        const line = await waitForLog(
          current.target.log,
          (l) => l.id === id,
          caps.disconnectBoundMs + MARGIN_MS + 10_000,
        );
        const noticed = Date.now() - dropped;
        expect(line).toMatchObject({
          method: 'tools/call',
          name: 'sleep',
          outcome: 'cancelled',
          reason: 'disconnect',
        });
        expect(noticed).toBeLessThan(caps.disconnectBoundMs + MARGIN_MS);
      },
    );

    test('a completed request is not a disconnect', async () => {
      const { mcpUrl } = current.target;
      await (
        await fetch(
          mcpUrl,
          modern(
            'tools/call',
            { name: 'echo', arguments: { text: 'x' } },
            { id: 'completed-json' },
          ),
        )
      ).json();
      const sse = await fetch(
        mcpUrl,
        modern(
          'tools/call',
          { name: 'sleep', arguments: { ms: 10 } },
          { id: 'completed-sse', meta: { progressToken: 'c' } },
        ),
      );
      await new SseReader(sse).rest();
      const json = await waitForLog(current.target.log, (l) => l.id === 'completed-json');
      const streamed = await waitForLog(current.target.log, (l) => l.id === 'completed-sse');
      expect([json.outcome, streamed.outcome]).toEqual(['ok', 'ok']);
      // Nothing for these ids turns into a cancellation afterwards (Deno's legacy abort fires late).
      await fetch(`${current.target.url}/health`);
      const lines = (await current.target.log()).filter(
        (l) => l.id === 'completed-json' || l.id === 'completed-sse',
      );
      expect(lines.map((l) => l.outcome)).toEqual(['ok', 'ok']);
    });

    test.skipIf(!caps.sessions)(
      'legacy: a dropped answer with nothing to resume aborts at once',
      async () => {
        const { mcpUrl } = current.target;
        const { session } = await initialize(mcpUrl, '2025-06-18');
        const client = new AbortController();
        const call = fetch(
          mcpUrl,
          legacy('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
            id: 'drop-json',
            version: '2025-06-18',
            signal: client.signal,
          }),
        );
        await running(current.target.url, call);
        client.abort();
        await call.catch(() => undefined);
        const line = await waitForLog(
          current.target.log,
          (l) => l.id === 'drop-json' && l.sessionId === session,
        );
        expect(line).toMatchObject({ outcome: 'cancelled', reason: 'disconnect' });
      },
    );

    test.skipIf(!caps.sessions)(
      'legacy: a dropped resumable stream keeps its handler; Last-Event-ID gets the rest and the result',
      async () => {
        const { mcpUrl } = current.target;
        const { session } = await initialize(mcpUrl, '2025-11-25');
        const client = new AbortController();
        const response = await fetch(
          mcpUrl,
          legacy(
            'tools/call',
            { name: 'sleep', arguments: { ms: 1500 }, _meta: { progressToken: 'r' } },
            session,
            { id: 'resume-me', version: '2025-11-25', signal: client.signal },
          ),
        );
        const reader = new SseReader(response);
        const first = await reader.message();
        expect(first?.params.progress).toBe(0);
        client.abort();
        const resumed = await fetch(mcpUrl, legacyGet(session, first?._eventId));
        const rest = await new SseReader(resumed).rest();
        expect(rest.map((m) => m.params?.progress ?? m.result?.content[0].text)).toEqual([
          1000,
          'slept 1500 ms',
        ]);
        const line = await waitForLog(
          current.target.log,
          (l) => l.id === 'resume-me' && l.sessionId === session,
        );
        expect(line.outcome).toBe('ok');
      },
    );
  });
}
