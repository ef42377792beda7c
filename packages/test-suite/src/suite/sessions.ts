import { describe, expect, test } from 'vitest';
import type { Current, TargetCaps } from '../targets/types.ts';
import { initialize, legacy, running, SseReader, waitForLog } from './http.ts';

const SKIP =
  'workerd isolates share no memory between requests, so legacy sessions need Durable Objects';

export function sessions(current: Current, caps: TargetCaps): void {
  describe(`a dropped stream is not a dead session${caps.sessions ? '' : ` (skipped: ${SKIP})`}`, () => {
    test.skipIf(!caps.sessions)(
      'the GET stream drops; the session goes on; Last-Event-ID replays what was missed',
      async () => {
        const { mcpUrl } = current.target;
        const { session } = await initialize(mcpUrl, '2025-11-25');
        const get = (lastEventId?: string) =>
          fetch(mcpUrl, {
            headers: {
              accept: 'text/event-stream',
              'mcp-session-id': session as string,
              ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
            },
          });
        const first = new SseReader(await get());
        await first.next(); // priming
        await (await fetch(mcpUrl, legacy('tools/call', { name: 'touch' }, session))).json();
        const seen = await first.message();
        expect(seen?.method).toBe('notifications/tools/list_changed');
        await first.cancel();
        // While the stream is down: the session answers, and a notification is stored.
        const call = await (
          await fetch(mcpUrl, legacy('tools/call', { name: 'touch' }, session))
        ).json();
        expect(call.result.content[0].text).toBe('touched');
        const resumed = new SseReader(await get(seen?._eventId));
        const missed = await resumed.message();
        expect(missed?.method).toBe('notifications/tools/list_changed');
        expect(missed?._eventId).not.toBe(seen?._eventId);
        await resumed.cancel();
      },
    );

    test.skipIf(!caps.sessions)(
      'a session id the server never issued is 404 Session not found, whatever its shape',
      async () => {
        const { mcpUrl } = current.target;
        // A UUID, 64 hex digits no namespace issued (a Durable Object id has to be real), junk.
        for (const id of [crypto.randomUUID(), `${'ab'.repeat(32)}.token`, 'x'.repeat(65)]) {
          const answer = await fetch(mcpUrl, legacy('ping', undefined, id));
          expect([answer.status, (await answer.json()).error?.code], id).toEqual([404, -32001]);
        }
      },
    );
    test.skipIf(!caps.sessions)(
      'notifications/cancelled aborts with client-cancel; DELETE ends the session (404 after)',
      async () => {
        const { mcpUrl } = current.target;
        const { session } = await initialize(mcpUrl, '2025-06-18');
        const headers = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session as string,
        };
        const call = fetch(
          mcpUrl,
          legacy('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
            id: 'to-cancel',
            version: '2025-06-18',
          }),
        );
        await running(current.target.url, call);
        const cancelled = await fetch(mcpUrl, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: 'to-cancel' },
          }),
        });
        expect(cancelled.status).toBe(202);
        const line = await waitForLog(
          current.target.log,
          (l) => l.id === 'to-cancel' && l.sessionId === session,
        );
        expect(line).toMatchObject({ outcome: 'cancelled', reason: 'client-cancel' });
        await (await call).text();
        expect((await fetch(mcpUrl, { method: 'DELETE', headers })).status).toBe(200);
        expect((await fetch(mcpUrl, legacy('ping', undefined, session))).status).toBe(404);
        await waitForLog(
          current.target.log,
          (l) =>
            l.kind === 'session-close' && l.sessionId === session && l.reason === 'session-deleted',
        );
      },
    );
  });
}
