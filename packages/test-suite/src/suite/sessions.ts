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

/**
 * How long a GET stream may take to show its headers: far below the 15 s keep-alive of the
 * Node, Deno and Bun targets (the first write a stream would otherwise wait for), far above what
 * a loaded machine needs to answer.
 */
const HEADERS_WITHIN_MS = 5_000;

/** The response, or a failure once `ms` passed without its headers. */
async function headersWithin(answer: Promise<Response>, ms: number): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no response headers within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

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
      'a fresh GET on a 2025-06-18 session (nothing to send yet) shows its headers at once',
      async () => {
        const { mcpUrl } = current.target;
        const version = { version: '2025-06-18' };
        const { session } = await initialize(mcpUrl, version.version);
        // 2025-06-18 has no priming event: nothing is written until a notification.
        const fresh = await headersWithin(
          fetch(mcpUrl, legacyGet(session, undefined, version)),
          HEADERS_WITHIN_MS,
        );
        expect([fresh.status, fresh.headers.get('content-type')]).toEqual([
          200,
          'text/event-stream',
        ]);
        await fresh.body?.cancel();
      },
    );

    test.skipIf(!caps.sessions)(
      'a resume with nothing to replay shows its headers at once',
      async () => {
        const { mcpUrl } = current.target;
        // 2025-11-25: the GET stream opens with a priming event, an id to resume from.
        const { session } = await initialize(mcpUrl, LEGACY);
        const version = { version: LEGACY };
        const first = new SseReader(await fetch(mcpUrl, legacyGet(session, undefined, version)));
        const priming = await first.next();
        expect(priming?.id).toBeDefined();
        await first.cancel();
        // Resumed right there: nothing to replay, and a resume is not primed, so nothing written.
        const resumed = await headersWithin(
          fetch(mcpUrl, legacyGet(session, priming?.id, version)),
          HEADERS_WITHIN_MS,
        );
        expect([resumed.status, resumed.headers.get('content-type')]).toEqual([
          200,
          'text/event-stream',
        ]);
        await resumed.body?.cancel();
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
