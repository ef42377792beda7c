import {
  initialize,
  LEGACY,
  legacy,
  legacyDelete,
  legacyGet,
  notification,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current, TargetCaps } from '../targets/types.ts';
import { running, waitForLog } from './wait.ts';

const SKIP =
  'workerd isolates share no memory between requests, so legacy sessions need Durable Objects';

export function sessions(current: Current, caps: TargetCaps): void {
  describe(`a dropped stream is not a dead session${caps.sessions ? '' : ` (skipped: ${SKIP})`}`, () => {
    test.skipIf(!caps.sessions)(
      'the GET stream drops; the session goes on; Last-Event-ID replays what was missed',
      async () => {
        const { mcpUrl } = current.target;
        const { session } = await initialize(mcpUrl, LEGACY);
        const version = { version: LEGACY };
        const first = new SseReader(await fetch(mcpUrl, legacyGet(session)));
        await first.next(); // priming
        await (
          await fetch(mcpUrl, legacy('tools/call', { name: 'touch' }, session, version))
        ).json();
        const seen = await first.message();
        expect(seen?.method).toBe('notifications/tools/list_changed');
        await first.cancel();
        // While the stream is down: the session answers, and a notification is stored.
        const call = await (
          await fetch(mcpUrl, legacy('tools/call', { name: 'touch' }, session, version))
        ).json();
        expect(call.result.content[0].text).toBe('touched');
        const resumed = new SseReader(await fetch(mcpUrl, legacyGet(session, seen?._eventId)));
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
          const answer = await fetch(mcpUrl, legacy('ping', undefined, id, { version: LEGACY }));
          expect([answer.status, (await answer.json()).error?.code], id).toEqual([404, -32001]);
        }
      },
    );
    test.skipIf(!caps.sessions)(
      'notifications/cancelled aborts with client-cancel; DELETE ends the session (404 after)',
      async () => {
        const { mcpUrl } = current.target;
        const version = { version: '2025-06-18' };
        const { session } = await initialize(mcpUrl, version.version);
        const call = fetch(
          mcpUrl,
          legacy('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
            id: 'to-cancel',
            ...version,
          }),
        );
        await running(current.target.url, call);
        const cancelled = await fetch(
          mcpUrl,
          notification('notifications/cancelled', { requestId: 'to-cancel' }, session),
        );
        expect(cancelled.status).toBe(202);
        const line = await waitForLog(
          current.target.log,
          (l) => l.id === 'to-cancel' && l.sessionId === session,
        );
        expect(line).toMatchObject({ outcome: 'cancelled', reason: 'client-cancel' });
        await (await call).text();
        expect((await fetch(mcpUrl, legacyDelete(session as string))).status).toBe(200);
        expect((await fetch(mcpUrl, legacy('ping', undefined, session, version))).status).toBe(404);
        await waitForLog(
          current.target.log,
          (l) =>
            l.kind === 'session-close' && l.sessionId === session && l.reason === 'session-deleted',
        );
      },
    );
  });
}
