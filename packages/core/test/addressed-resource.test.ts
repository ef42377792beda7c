/**
 * `auth.resource` as a path (issue 24, item 1): behind a trusted proxy the resource identifier,
 * the Protected Resource Metadata and the challenges follow the URL each client addressed, only
 * on the names `allowedHosts` lists, and a token is accepted only for the name it was minted for
 * (RFC 8707: a token of another server on another name, a loopback one included, is refused).
 */
import { modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { HANDLE } from '../src/adapter.ts';
import { toResponse } from '../src/http/responses.ts';
import { createMcpHandler, type McpHandlerOptions, McpServer } from '../src/index.ts';
import { jwtVerifier } from '../src/jwt.ts';

const ISSUER = 'https://as.example.test';
const PROXY = '127.0.0.1';
const WELL_KNOWN = '/.well-known/oauth-protected-resource/mcp';

let privateKey: CryptoKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k', alg: 'ES256', use: 'sig' }] };
});

/** An access token of the authorization server, for `aud`. */
function token(aud: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, sub: 'alice', aud, scope: 'mcp', iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k' })
    .sign(privateKey);
}

function setup(options: Partial<McpHandlerOptions> = {}) {
  const server = new McpServer({ name: 'named', version: '1' });
  server.tool('whoami', { scopes: ['mcp'] }, (_args, ctx) => ctx.auth?.principal ?? 'nobody');
  server.tool('admin', { scopes: ['admin'] }, () => 'done');
  const handler = createMcpHandler(server, {
    allowedHosts: ['mcp.example.test', 'mcp.other.test'],
    trustProxy: ['loopback'],
    auth: {
      resource: '/mcp',
      authorizationServers: [ISSUER],
      // No audience: each token is checked against the resource its request addressed.
      verify: jwtVerifier({
        issuer: ISSUER,
        jwksUrl: `${ISSUER}/jwks`,
        fetch: async () => Response.json(jwks),
      }),
    },
    ...options,
  });
  return handler;
}

/** What a proxy on 127.0.0.1 forwards for a client that addressed `https://host`. */
function via(host: string, headers: Record<string, string> = {}): Record<string, string> {
  return { 'x-forwarded-host': host, 'x-forwarded-proto': 'https', ...headers };
}

function send(handler: ReturnType<typeof setup>, request: Request, peer = PROXY) {
  return handler[HANDLE](Object.assign(request, { remoteAddress: peer })).then(toResponse);
}

function call(handler: ReturnType<typeof setup>, headers: Record<string, string>, name = 'whoami') {
  return send(handler, modernRequest('tools/call', { name, arguments: {} }, { headers }));
}

function metadata(handler: ReturnType<typeof setup>, headers: Record<string, string>) {
  return send(handler, new Request(`http://127.0.0.1:8787${WELL_KNOWN}`, { headers }));
}

describe('auth.resource as a path', () => {
  test('the metadata and the challenge name the URL each client addressed, on every listed name', async () => {
    const handler = setup();
    for (const host of ['mcp.example.test', 'mcp.other.test']) {
      const document = await metadata(handler, via(host));
      expect(document.status).toBe(200);
      expect(await document.json()).toMatchObject({
        resource: `https://${host}/mcp`,
        authorization_servers: [ISSUER],
      });
      const refused = await call(handler, via(host));
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="https://${host}${WELL_KNOWN}"`,
      );
    }
  });

  test('a token is accepted on the name it was minted for, and refused on another (even once verified)', async () => {
    const handler = setup();
    const bearer = `Bearer ${await token('https://mcp.example.test/mcp')}`;
    const ok = await readAnswer(
      await call(handler, via('mcp.example.test', { authorization: bearer })),
    );
    expect(ok.message.result?.content?.[0]?.text).toBe('alice');
    const elsewhere = await call(handler, via('mcp.other.test', { authorization: bearer }));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain(
      'error_description="The access token was issued for another resource"',
    );
    // A token for the internal address (what a misconfigured client would ask for) is refused too.
    const internal = `Bearer ${await token('http://127.0.0.1:8787/mcp')}`;
    expect((await call(handler, via('mcp.example.test', { authorization: internal }))).status).toBe(
      401,
    );
  });

  test('the step-up challenge names the addressed metadata too', async () => {
    const handler = setup();
    const bearer = `Bearer ${await token('https://mcp.other.test/mcp')}`;
    const refused = await call(handler, via('mcp.other.test', { authorization: bearer }), 'admin');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="https://mcp.other.test${WELL_KNOWN}"`,
    );
  });

  test('a name allowedHosts does not list never becomes a resource: loopback names, a rebinding host, an untrusted peer', async () => {
    const handler = setup();
    const loopback = `Bearer ${await token('http://localhost:8787/mcp')}`;
    // Loopback names pass the Host check, but are no resource of this server: 403, token unread.
    const local = await send(
      handler,
      modernRequest(
        'tools/call',
        { name: 'whoami', arguments: {} },
        {
          url: 'http://localhost:8787/mcp',
          headers: { authorization: loopback },
        },
      ),
      '127.0.0.1',
    );
    expect(local.status).toBe(403);
    expect((await metadata(handler, { host: 'localhost:8787' })).status).toBe(403);
    expect((await metadata(handler, via('rebind.evil.test'))).status).toBe(403);
    // From a peer that is not the proxy, the forwarded host does not count: the URL's does.
    const untrusted = await send(
      handler,
      new Request(`http://127.0.0.1:8787${WELL_KNOWN}`, { headers: via('mcp.example.test') }),
      '192.0.2.7',
    );
    expect(untrusted.status).toBe(403);
  });

  test('needs allowedHosts: without a list of names, the handler is not built', () => {
    for (const allowedHosts of [undefined, [], '*'] as const)
      expect(() =>
        setup(
          allowedHosts === undefined
            ? { allowedHosts: undefined }
            : { allowedHosts: allowedHosts as never },
        ),
      ).toThrow(/allowedHosts/);
  });

  test('a jwtVerifier without an audience refuses a token when no resource is passed', async () => {
    const verify = jwtVerifier({
      issuer: ISSUER,
      jwksUrl: `${ISSUER}/jwks`,
      fetch: async () => Response.json(jwks),
    });
    const minted = await token('https://mcp.example.test/mcp');
    const request = Object.assign(new Request('https://mcp.example.test/mcp'), {});
    await expect(verify(minted, request as never)).rejects.toMatchObject({ rejection: 'audience' });
    await expect(
      verify(minted, request as never, 'https://mcp.example.test/mcp'),
    ).resolves.toMatchObject({
      principal: 'alice',
    });
  });
});
