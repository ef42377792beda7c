/**
 * Authorization tests of ways around authentication: a path the app decodes to the endpoint, a
 * POST without a token on a live session, and a client's own principal header, which only the
 * Worker may set.
 */
import { PRINCIPAL_HEADER } from '@edge-mcp/adapters/cloudflare';
import {
  initializeParams,
  LEGACY,
  legacy,
  legacyDelete,
  legacyGet,
  modern,
  readAnswer,
} from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import type { Current } from '../targets/types.ts';
import {
  ALICE,
  BOB,
  caller,
  FORGED_ALICE,
  openSession,
  stillHers,
  VERSION,
} from './auth-clients.ts';

/** Registers the bypass tests; called inside the group's `describe`. */
export function bypassTests(current: Current): void {
  test('a path the app decodes to the endpoint (/%6Dcp) is no way around authentication', async () => {
    const { url } = current.target;
    for (const request of [
      modern('tools/call', { name: 'caller' }, { headers: FORGED_ALICE }),
      legacy('initialize', initializeParams(LEGACY), undefined, { headers: FORGED_ALICE }),
    ]) {
      const answer = await fetch(`${url}/%6Dcp`, request);
      const text = await answer.text();
      // Whatever the path means to the app (the endpoint, or nothing), the forged principal
      // is not believed: never an answer as alice.
      expect([401, 404], text).toContain(answer.status);
      expect(text).not.toContain('alice');
    }
  });

  test('a POST refused before its body is read leaves the session serving', async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    for (let i = 0; i < 5; i++) {
      const refused = await fetch(
        mcpUrl,
        legacy('tools/call', { name: 'caller' }, session, VERSION),
      );
      expect(refused.status).toBe(401);
      await refused.body?.cancel();
      expect((await caller(mcpUrl, session, ALICE)).status).toBe(200);
    }
  });

  test(`a client's own ${PRINCIPAL_HEADER} header is never believed`, async () => {
    const { mcpUrl } = current.target;
    const session = await openSession(mcpUrl, ALICE);
    // Bob claiming to be alice reaches nothing of hers.
    const forged = { ...BOB, ...FORGED_ALICE };
    const hijack = await fetch(
      mcpUrl,
      legacy('tools/call', { name: 'caller' }, session, { ...VERSION, headers: forged }),
    );
    expect(hijack.status).toBe(404);
    await hijack.body?.cancel();
    const get = await fetch(mcpUrl, legacyGet(session, undefined, { ...VERSION, headers: forged }));
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const remove = await fetch(mcpUrl, legacyDelete(session, { ...VERSION, headers: forged }));
    expect(remove.status).toBe(404);
    await remove.body?.cancel();
    // With no token the header is no credential: 401, on her session (bodiless, for the reason
    // given in auth-session-hijack.ts) and statelessly.
    for (const request of [
      legacyGet(session, undefined, { ...VERSION, headers: FORGED_ALICE }),
      legacyDelete(session, { ...VERSION, headers: FORGED_ALICE }),
      modern('tools/call', { name: 'caller' }, { headers: FORGED_ALICE }),
      legacy('initialize', initializeParams(LEGACY), undefined, { headers: FORGED_ALICE }),
    ]) {
      const refused = await fetch(mcpUrl, request);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
      await refused.body?.cancel();
    }
    // Bob's own stateless call is still his.
    const his = await readAnswer(
      await fetch(mcpUrl, modern('tools/call', { name: 'caller' }, { headers: forged })),
    );
    expect(his.message.result?.content?.[0]?.text).toBe('bob');
    await stillHers(mcpUrl, session);
  });
}
