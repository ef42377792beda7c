/**
 * The clients of the authorization group and what they do on a legacy session: alice and bob
 * (the `auth` fixture's tokens), a forged principal header, and helpers that open a session, ask
 * who is calling, and compare an answer with the one an unknown session id gets.
 */
import { PRINCIPAL_HEADER } from '@edge-mcp/adapters/cloudflare';
import {
  initializeParams,
  LEGACY,
  legacy,
  legacyGet,
  notification,
  readAnswer,
} from '@edge-mcp/test-kit';
import { expect } from 'vitest';
import { SUITE_RESOURCE } from '../fixture.ts';

export const ALICE = { authorization: 'Bearer alice-token' };
export const BOB = { authorization: 'Bearer bob-token' };
export const VERSION = { version: LEGACY };

/** The metadata URL the `auth` fixture names in its challenges (its resource's, RFC 9728). */
export const METADATA_URL = `${new URL(SUITE_RESOURCE).origin}/.well-known/oauth-protected-resource/mcp`;

/** A principal header as the Worker sets it, claiming alice, sent by a client that is not alice. */
export const FORGED_ALICE = {
  [PRINCIPAL_HEADER]: encodeURIComponent(
    JSON.stringify({ principal: 'alice', scopes: ['mcp:tools'] }),
  ),
};

/** `initialize` + `notifications/initialized` of a 2025-11-25 session as the holder of `auth`. */
export async function openSession(mcpUrl: string, auth: Record<string, string>): Promise<string> {
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
export function unknownLike(session: string): string {
  return `${session.slice(0, -1)}${session.endsWith('0') ? '1' : '0'}`;
}

/** Status and body of an answer, read to its end (a stream that opened is not read: it would not end). */
export async function statusAndBody(answer: Promise<Response>): Promise<[number, string]> {
  const response = await answer;
  if (response.headers.get('content-type') === 'text/event-stream') {
    await response.body?.cancel();
    return [response.status, 'an open event stream'];
  }
  return [response.status, await response.text()];
}

/** The text of the `caller` tool's answer on `session` (who the server thinks is calling). */
export async function caller(
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
export async function stillHers(mcpUrl: string, session: string): Promise<void> {
  expect(await caller(mcpUrl, session, ALICE)).toEqual({ status: 200, text: 'alice' });
  const stream = await fetch(mcpUrl, legacyGet(session, undefined, { ...VERSION, headers: ALICE }));
  expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
  await stream.body?.cancel();
}
