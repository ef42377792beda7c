/**
 * Authorization tests of requests without a usable token: the 401 challenge and the RFC 9728
 * metadata it names, and a refused token's 401 saying which check failed, as the request log
 * records it.
 */
import { initializeParams, LEGACY, legacy, modern, readAnswer } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { SUITE_RESOURCE } from '../fixture.ts';
import type { Current } from '../targets/types.ts';
import { BOB, METADATA_URL } from './auth-clients.ts';
import { waitForLog } from './wait.ts';

/** Registers the challenge tests; called inside the group's `describe`. */
export function challengeTests(current: Current): void {
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
      [{ authorization: 'Bearer mallory' }, 'token-invalid', 'The access token is not valid here'],
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
}
