import { PRINCIPAL_HEADER } from '@edge-mcp/adapters/cloudflare';
import {
  initializeParams,
  LEGACY,
  legacy,
  legacyDelete,
  legacyGet,
  modern,
  notification,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { SUITE_RESOURCE } from '../fixture.ts';
import type { Current } from '../targets/types.ts';
import { waitForLog } from './wait.ts';

const ALICE = { authorization: 'Bearer alice-token' };
const BOB = { authorization: 'Bearer bob-token' };
const VERSION = { version: LEGACY };

/** The metadata URL the `auth` fixture names in its challenges (its resource's, RFC 9728). */
const METADATA_URL = `${new URL(SUITE_RESOURCE).origin}/.well-known/oauth-protected-resource/mcp`;

/** A principal header as the Worker sets it, claiming alice, sent by a client that is not alice. */
const FORGED_ALICE = {
  [PRINCIPAL_HEADER]: encodeURIComponent(
    JSON.stringify({ principal: 'alice', scopes: ['mcp:tools'] }),
  ),
};

/** `initialize` + `notifications/initialized` of a 2025-11-25 session as the holder of `auth`. */
async function openSession(mcpUrl: string, auth: Record<string, string>): Promise<string> {
  const opened = await fetch(
    mcpUrl,
    legacy('initialize', initializeParams(LEGACY), undefined, { headers: auth }),
  );
  const text = await opened.text();
  const session = opened.headers.get('mcp-session-id');
  if (opened.status !== 200 || session === null)
    throw new Error(`initialize: ${opened.status} ${text}`);
  const initialized = await fetch(
    mcpUrl,
    notification('notifications/initialized', undefined, session, { ...VERSION, headers: auth }),
  );
  expect(initialized.status, await initialized.text()).toBe(202);
  return session;
}

/** A session id of the same shape that no one was issued (its last character changed). */
function unknownLike(session: string): string {
  return `${session.slice(0, -1)}${session.endsWith('0') ? '1' : '0'}`;
}

/** Status and body of an answer, read to its end (a stream that opened is not read: it would not end). */
async function statusAndBody(answer: Promise<Response>): Promise<[number, string]> {
  const response = await answer;
  if (response.headers.get('content-type') === 'text/event-stream') {
    await response.body?.cancel();
    return [response.status, 'an open event stream'];
  }
  return [response.status, await response.text()];
}

/** The text of the `caller` tool's answer on `session` (who the server thinks is calling). */
async function caller(
  mcpUrl: string,
  session: string,
  auth: Record<string, string>,
): Promise<{ status: number; text: string | undefined }> {
  const answer = await readAnswer(
    await fetch(
      mcpUrl,
      legacy('tools/call', { name: 'caller' }, session, { ...VERSION, headers: auth }),
    ),
  );
  return { status: answer.status, text: answer.message.result?.content?.[0]?.text };
}

/** Alice's session is intact: her call is answered as hers and her GET stream opens. */
async function stillHers(mcpUrl: string, session: string): Promise<void> {
  expect(await caller(mcpUrl, session, ALICE)).toEqual({ status: 200, text: 'alice' });
  const stream = await fetch(mcpUrl, legacyGet(session, undefined, { ...VERSION, headers: ALICE }));
  expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
  await stream.body?.cancel();
}

/**
 * Authorization on the target's `auth` fixture (the suite's server as a resource server, tokens
 * `alice-token` and `bob-token`): every piece of a legacy session is bound to the principal that
 * opened it, so another principal holding the session id gets exactly what an unknown id gets.
 * On workerd the Worker authenticates and the session's Durable Object trusts only the principal
 * the Worker hands over.
 */
export function auth(current: Current): void {
  describe('a session is bound to the principal that opened it', () => {
    test('no token: 401 naming the metadata, which is served at the well-known paths', async () => {
      const { mcpUrl, url } = current.target;
      for (const request of [
        legacy('initialize', initializeParams(LEGACY)),
        modern('tools/call', { name: 'caller' }),
      ]) {
        const refused = await fetch(mcpUrl, request);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toBe(
          `Bearer resource_metadata="${METADATA_URL}"`,
        );
        await refused.body?.cancel();
      }
      const invalid = await fetch(
        mcpUrl,
        modern('tools/call', { name: 'caller' }, { headers: { authorization: 'Bearer mallory' } }),
      );
      expect(invalid.status).toBe(401);
      expect(invalid.headers.get('www-authenticate')).toMatch(
        new RegExp(`^Bearer error="invalid_token".*resource_metadata="${METADATA_URL}"`),
      );
      await invalid.body?.cancel();
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
      ]) {
        const metadata = await fetch(`${url}${path}`);
        expect(metadata.status, path).toBe(200);
        expect(await metadata.json()).toMatchObject({
          resource: SUITE_RESOURCE,
          authorization_servers: ['http://127.0.0.1:9'],
          scopes_supported: ['mcp:tools'],
        });
      }
      // With a token, both eras answer as its principal.
      const call = await readAnswer(
        await fetch(mcpUrl, modern('tools/call', { name: 'caller' }, { headers: BOB })),
      );
      expect(call.message.result?.content?.[0]?.text).toBe('bob');
    });

    test('a refused token: 401 saying which check failed, and the refusal in the request log', async () => {
      const { mcpUrl } = current.target;
      const cases: Array<[Record<string, string>, string, string | undefined]> = [
        [{}, 'token-missing', undefined],
        [{ authorization: 'Bearer expired-token' }, 'token-expired', 'The access token expired'],
        [
          { authorization: 'Bearer elsewhere-token' },
          'token-audience',
          'The access token was issued for another resource',
        ],
        [
          { authorization: 'Bearer mallory' },
          'token-invalid',
          'The access token is not valid here',
        ],
      ];
      for (const [headers, reason, description] of cases) {
        const refused = await fetch(mcpUrl, modern('tools/call', { name: 'caller' }, { headers }));
        expect(refused.status, reason).toBe(401);
        const challenge = refused.headers.get('www-authenticate') ?? '';
        if (description) expect(challenge).toContain(`error_description="${description}"`);
        expect(challenge).not.toContain('mallory');
        await refused.body?.cancel();
        const line = await waitForLog(
          () => current.target.log(),
          (l) => l.kind === 'request' && l.outcome === 'refused' && l.reason === reason,
        );
        expect(line).toMatchObject({ status: 401, method: 'POST' });
      }
    });

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
        (l) =>
          l.outcome === 'refused' && l.reason === 'session-principal' && l.sessionId === session,
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
      const get = await fetch(
        mcpUrl,
        legacyGet(session, undefined, { ...VERSION, headers: forged }),
      );
      expect(get.status).toBe(404);
      await get.body?.cancel();
      const remove = await fetch(mcpUrl, legacyDelete(session, { ...VERSION, headers: forged }));
      expect(remove.status).toBe(404);
      await remove.body?.cancel();
      // With no token the header is no credential: 401, on her session (bodiless, as above)
      // and statelessly.
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
  });
}
