/**
 * The resource server (issue 13): bearer tokens checked on every request, 401 and 403 challenges
 * that point at the Protected Resource Metadata, scopes, and every piece of state bound to the
 * principal that created it. Tokens here are verified by a table (the JWT verifier has its own
 * tests); what matters is what the handler does with the answer.
 */
import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  readAnswer,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { HANDLE } from '../src/adapter.ts';
import {
  type AuthInfo,
  createMcpHandler,
  InvalidTokenError,
  type McpHandlerOptions,
  McpServer,
} from '../src/index.ts';

const RESOURCE = 'http://127.0.0.1:8787/mcp';
const METADATA = 'http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp';

const TOKENS: Record<string, AuthInfo> = {
  alice: { principal: 'alice', scopes: ['mcp:tools'] },
  'alice-admin': { principal: 'alice', scopes: ['mcp:tools', 'admin'] },
  bob: { principal: 'bob', scopes: ['mcp:tools'] },
  expired: { principal: 'alice', scopes: ['mcp:tools'], expiresAt: 1_000 },
};

function server(): McpServer {
  const s = new McpServer({ name: 'auth', version: '1' });
  s.tool('whoami', {}, (_args, ctx) => `${ctx.auth?.principal} ${ctx.auth?.scopes.join(',')}`);
  s.tool('wipe', { scopes: ['admin'] }, () => 'wiped');
  s.tool('ask', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'sure?', requestedSchema: { type: 'object' } });
    return String(answer.action);
  });
  return s;
}

function handler(options: Partial<McpHandlerOptions> = {}) {
  return createMcpHandler(server(), {
    auth: {
      verify: (token) => TOKENS[token],
      resource: RESOURCE,
      authorizationServers: ['http://127.0.0.1:9000'],
      scopesSupported: ['mcp:tools', 'admin'],
      ...options.auth,
    },
    ...options,
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('authentication', () => {
  test('without a token: 401 pointing at the metadata, which the handler serves at both paths', async () => {
    const h = handler();
    const refused = await h.fetch(modernRequest('tools/call', { name: 'whoami' }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`);
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await h.fetch(new Request(`http://127.0.0.1:8787${path}`));
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: ['http://127.0.0.1:9000'],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:tools', 'admin'],
      });
    }
    const preflight = await h.fetch(
      new Request(METADATA, {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example' },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('a refused token: 401 whose error_description says which check failed, never the token', async () => {
    const h = createMcpHandler(server(), {
      auth: {
        verify: (token) => {
          if (token === 'for-elsewhere') throw new InvalidTokenError('audience');
          if (token === 'forged') throw new InvalidTokenError('signature');
          return TOKENS[token];
        },
        resource: RESOURCE,
        authorizationServers: ['http://127.0.0.1:9000'],
      },
    });
    const cases: Array<[string, string, string]> = [
      ['Bearer zq9-made-up-token', 'invalid_token', 'The access token is not valid here'],
      ['Bearer expired', 'invalid_token', 'The access token expired'],
      ['Bearer for-elsewhere', 'invalid_token', 'The access token was issued for another resource'],
      ['Bearer forged', 'invalid_token', 'The access token signature does not verify'],
      // RFC 6750 §3.1: another scheme, or a bare `Bearer`, is a malformed request.
      ['Basic YWxpY2U6cHc=', 'invalid_request', 'The Authorization header must carry a Bearer'],
      ['Bearer', 'invalid_request', 'The Authorization header must carry a Bearer'],
    ];
    for (const [authorization, error, description] of cases) {
      const refused = await h.fetch(
        modernRequest('tools/call', { name: 'whoami' }, { headers: { authorization } }),
      );
      expect(refused.status, authorization).toBe(401);
      const challenge = refused.headers.get('www-authenticate') ?? '';
      expect(challenge, authorization).toMatch(
        new RegExp(
          `^Bearer error="${error}", error_description="${description}[^"]*", resource_metadata="`,
        ),
      );
      expect(challenge).not.toContain('zq9-made-up-token');
      expect((await refused.json()).error.message).toContain(description);
    }
  });

  test('a verifier that cannot decide (its authorization server is down): 503 with Retry-After, not 401', async () => {
    const h = createMcpHandler(server(), {
      auth: {
        verify: () => {
          throw new Error('JWKS unreachable');
        },
        resource: RESOURCE,
        authorizationServers: [],
      },
    });
    const answer = await h.fetch(
      modernRequest('tools/call', { name: 'whoami' }, { headers: bearer('alice') }),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.headers.get('www-authenticate')).toBeNull();
  });

  test('a valid token: ctx.auth in both eras', async () => {
    const h = handler();
    const modern = await readAnswer(
      await h.fetch(modernRequest('tools/call', { name: 'whoami' }, { headers: bearer('alice') })),
    );
    expect(modern.message.result.content[0].text).toBe('alice mcp:tools');
    const session = await openSession({ fetch: (r) => h.fetch(withAuth(r, 'alice')) });
    const legacy = await readAnswer(
      await h.fetch(
        legacyRequest('tools/call', { name: 'whoami' }, session, { headers: bearer('alice') }),
      ),
    );
    expect(legacy.message.result.content[0].text).toBe('alice mcp:tools');
  });

  test('a principal an integration vouched for (HANDLE with auth) needs no token', async () => {
    const h = handler();
    const reply = await h[HANDLE](
      modernRequest('tools/call', { name: 'whoami' }),
      true,
      TOKENS.bob,
    );
    const answer = await readAnswer(reply instanceof Response ? reply : reply.toResponse());
    expect(answer.message.result.content[0].text).toBe('bob mcp:tools');
  });
});

describe('scopes', () => {
  test('without the auth option (an integration vouched for the principal) the 403 still challenges', async () => {
    const h = createMcpHandler(server());
    const reply = await h[HANDLE](modernRequest('tools/call', { name: 'wipe' }), true, TOKENS.bob);
    const refused = reply instanceof Response ? reply : reply.toResponse();
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="admin"',
    );
  });

  test('a call without the scopes it needs: 403 insufficient_scope with the scope to step up to (both eras)', async () => {
    const h = handler();
    const refused = await h.fetch(
      modernRequest('tools/call', { name: 'wipe' }, { headers: bearer('alice') }),
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="admin", resource_metadata="${METADATA}"`,
    );
    expect((await readAnswer(refused)).message.error.data).toEqual({ requiredScopes: ['admin'] });
    const session = await openSession({ fetch: (r) => h.fetch(withAuth(r, 'alice')) });
    const legacy = await h.fetch(
      legacyRequest('tools/call', { name: 'wipe' }, session, { headers: bearer('alice') }),
    );
    expect(legacy.status).toBe(403);
    const allowed = await readAnswer(
      await h.fetch(
        modernRequest('tools/call', { name: 'wipe' }, { headers: bearer('alice-admin') }),
      ),
    );
    expect(allowed.message.result.content[0].text).toBe('wiped');
  });

  test('hideUnauthorized leaves out of lists what the principal may not use', async () => {
    const names = async (h: ReturnType<typeof handler>, token: string) =>
      (
        await readAnswer(await h.fetch(modernRequest('tools/list', {}, { headers: bearer(token) })))
      ).message.result.tools.map((t: { name: string }) => t.name);
    const hiding = handler({
      auth: {
        resource: RESOURCE,
        authorizationServers: [],
        verify: (t) => TOKENS[t],
        hideUnauthorized: true,
      },
    });
    expect(await names(hiding, 'alice')).toEqual(['whoami', 'ask']);
    expect(await names(hiding, 'alice-admin')).toEqual(['whoami', 'wipe', 'ask']);
    expect(await names(handler(), 'alice')).toEqual(['whoami', 'wipe', 'ask']);
  });
});

describe('everything is bound to its principal', () => {
  test("another principal's session id is 404 for POST, GET, DELETE and a resumption; the owner is unaffected", async () => {
    const h = handler();
    const session = await openSession({ fetch: (r) => h.fetch(withAuth(r, 'alice')) });
    const asBob = { headers: bearer('bob') };
    const post = await h.fetch(legacyRequest('tools/call', { name: 'whoami' }, session, asBob));
    expect(post.status).toBe(404);
    expect((await readAnswer(post)).message.error).toEqual({
      code: -32001,
      message: 'Session not found',
    });
    expect((await h.fetch(legacyGetRequest(session, undefined, asBob))).status).toBe(404);
    expect((await h.fetch(legacyGetRequest(session, '0-0', asBob))).status).toBe(404);
    expect((await h.fetch(legacyDeleteRequest(session, asBob))).status).toBe(404);
    // Unknown ids look exactly the same.
    const unknown = await h.fetch(
      legacyRequest('tools/call', { name: 'whoami' }, 'no-such-session', asBob),
    );
    expect(await unknown.text()).toBe(
      await (await h.fetch(legacyRequest('tools/call', { name: 'whoami' }, session, asBob))).text(),
    );
    // Alice's session is still hers, also with a refreshed token (same principal, new token).
    const mine = await readAnswer(
      await h.fetch(
        legacyRequest('tools/call', { name: 'whoami' }, session, {
          headers: bearer('alice-admin'),
        }),
      ),
    );
    expect(mine.message.result.content[0].text).toBe('alice mcp:tools,admin');
    expect(h.stats().sessions).toBe(1);
  });

  test("an expired token on a live session is 401; the session survives for its owner's next token", async () => {
    const h = handler();
    const session = await openSession({ fetch: (r) => h.fetch(withAuth(r, 'alice')) });
    const expired = await h.fetch(
      legacyRequest('tools/call', { name: 'whoami' }, session, { headers: bearer('expired') }),
    );
    expect(expired.status).toBe(401);
    const again = await h.fetch(
      legacyRequest('tools/call', { name: 'whoami' }, session, { headers: bearer('alice') }),
    );
    expect(again.status).toBe(200);
  });

  test('an input-required requestState replayed by another principal is refused', async () => {
    const h = handler();
    const capabilities = { elicitation: {} };
    const first = await readAnswer(
      await h.fetch(
        modernRequest('tools/call', { name: 'ask' }, { headers: bearer('alice'), capabilities }),
      ),
    );
    const { requestState, inputRequests } = first.message.result;
    const key = Object.keys(inputRequests)[0] as string;
    const retry = (token: string) =>
      h.fetch(
        modernRequest(
          'tools/call',
          {
            name: 'ask',
            requestState,
            inputResponses: { [key]: { action: 'accept', content: {} } },
          },
          { headers: bearer(token), capabilities },
        ),
      );
    const stolen = await readAnswer(await retry('bob'));
    expect(stolen.message.error).toMatchObject({ code: -32602 });
    expect(stolen.message.error.message).toMatch(/another request/);
    const own = await readAnswer(await retry('alice'));
    expect(own.message.result.content[0].text).toBe('accept');
  });
});

describe('CORS', () => {
  const origin = 'https://app.example';
  test('with the cors option: preflight 204 with the MCP headers, answers readable by the page', async () => {
    const h = handler({ cors: { origins: [origin] } });
    const preflight = await h.fetch(
      new Request(RESOURCE, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, mcp-param-region',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const allowed = preflight.headers.get('access-control-allow-headers') ?? '';
    for (const name of [
      'authorization',
      'mcp-protocol-version',
      'mcp-session-id',
      'last-event-id',
      'mcp-param-region',
    ])
      expect(allowed).toContain(name);
    const answer = await h.fetch(
      modernRequest('tools/call', { name: 'whoami' }, { headers: { ...bearer('alice'), origin } }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
    expect(answer.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    // The 401 is readable too: a browser client can find the metadata.
    const refused = await h.fetch(
      modernRequest('tools/call', { name: 'whoami' }, { headers: { origin } }),
    );
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });

  test('an origin not listed: preflight 403, requests refused by the Origin check', async () => {
    const h = handler({ cors: { origins: [origin] } });
    const foreign = 'https://evil.example';
    const preflight = await h.fetch(
      new Request(RESOURCE, { method: 'OPTIONS', headers: { origin: foreign } }),
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const request = await h.fetch(
      modernRequest(
        'tools/call',
        { name: 'whoami' },
        { headers: { ...bearer('alice'), origin: foreign } },
      ),
    );
    expect(request.status).toBe(403);
  });
});

/** `request` with alice's (or another) token added: for the test kit's session helpers. */
function withAuth(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${token}`);
  return new Request(request, { headers });
}
