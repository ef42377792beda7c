/**
 * Authorization tests of another principal holding alice's session id: bob's POST, GET, resumed
 * GET and DELETE each get what an unknown session id gets (404), and her session, open stream and
 * stored events are untouched.
 */
import { legacy, legacyDelete, legacyGet, readAnswer, SseReader } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import type { Current } from '../targets/types.ts';
import {
  ALICE,
  BOB,
  caller,
  openSession,
  statusAndBody,
  stillHers,
  unknownLike,
  VERSION,
} from './auth-clients.ts';
import { waitForLog } from './wait.ts';

/** Registers the session-hijack tests; called inside the group's `describe`. */
export function sessionHijackTests(current: Current): void {
  test("bob's POST on alice's session is 404, the same answer as an unknown session id", async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    const call = (id: string) =>
      fetch(
        mcpUrl,
        legacy('tools/call', { name: 'caller' }, id, { ...VERSION, id: 'as-bob', headers: BOB }),
      );
    const hijack = await statusAndBody(call(session));
    expect(hijack[0]).toBe(404);
    expect(hijack).toEqual(await statusAndBody(call(unknownLike(session))));
    expect(JSON.parse(hijack[1]).error?.code).toBe(-32001);
    // The client cannot tell the two apart; the request log can.
    await waitForLog(
      () => current.target.log(),
      (l) => l.outcome === 'refused' && l.reason === 'session-principal' && l.sessionId === session,
    );
    // Without a token it is a 401, whose session it is told to no one. (Bodiless requests
    // only: on workerd, a session object answering a POST before reading its body makes the
    // Worker's next request fail with 503, a bug of its own.)
    for (const request of [
      legacyGet(session, undefined, VERSION),
      legacyDelete(session, VERSION),
    ]) {
      const anonymous = await fetch(mcpUrl, request);
      expect(anonymous.status).toBe(401);
      await anonymous.body?.cancel();
    }
    await stillHers(mcpUrl, session);
  });

  test("bob's GET on alice's session is 404 and her open stream goes on", async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    const hers = new SseReader(
      await fetch(mcpUrl, legacyGet(session, undefined, { ...VERSION, headers: ALICE })),
    );
    await hers.next(); // priming
    const get = (id: string) =>
      fetch(mcpUrl, legacyGet(id, undefined, { ...VERSION, headers: BOB }));
    const hijack = await statusAndBody(get(session));
    expect(hijack[0]).toBe(404);
    expect(hijack).toEqual(await statusAndBody(get(unknownLike(session))));
    // Her stream was not replaced by his: the next notification still reaches her.
    await readAnswer(
      await fetch(
        mcpUrl,
        legacy('tools/call', { name: 'touch' }, session, { ...VERSION, headers: ALICE }),
      ),
    );
    expect((await hers.message())?.method).toBe('notifications/tools/list_changed');
    await hers.cancel();
    await stillHers(mcpUrl, session);
  });

  test("bob's GET with Last-Event-ID of alice's stream is 404; she resumes it herself", async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    const first = new SseReader(
      await fetch(mcpUrl, legacyGet(session, undefined, { ...VERSION, headers: ALICE })),
    );
    const priming = await first.next();
    expect(priming?.id).toBeDefined();
    await first.cancel();
    // While her stream is down, a notification is stored for her.
    await readAnswer(
      await fetch(
        mcpUrl,
        legacy('tools/call', { name: 'touch' }, session, { ...VERSION, headers: ALICE }),
      ),
    );
    const resume = (id: string, auth: Record<string, string>) =>
      fetch(mcpUrl, legacyGet(id, priming?.id, { ...VERSION, headers: auth }));
    const hijack = await statusAndBody(resume(session, BOB));
    expect(hijack[0]).toBe(404);
    expect(hijack).toEqual(await statusAndBody(resume(unknownLike(session), BOB)));
    // What was stored is still there for her.
    const resumed = new SseReader(await resume(session, ALICE));
    expect((await resumed.message())?.method).toBe('notifications/tools/list_changed');
    await resumed.cancel();
    await stillHers(mcpUrl, session);
  });

  test("bob's DELETE of alice's session is 404 and the session lives on", async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    const remove = (id: string) => fetch(mcpUrl, legacyDelete(id, { ...VERSION, headers: BOB }));
    const hijack = await statusAndBody(remove(session));
    expect(hijack[0]).toBe(404);
    expect(hijack).toEqual(await statusAndBody(remove(unknownLike(session))));
    await stillHers(mcpUrl, session);
    // Her own DELETE ends it.
    const deleted = await fetch(mcpUrl, legacyDelete(session, { ...VERSION, headers: ALICE }));
    expect(deleted.status).toBe(200);
    expect((await caller(mcpUrl, session, ALICE)).status).toBe(404);
  });
}
