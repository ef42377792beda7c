/**
 * `@edge-mcp/core/jwt` against a real key set served over HTTP on 127.0.0.1: tokens signed with
 * jose, checked for issuer, audience (RFC 8707), expiry and not-before with the clock skew,
 * signature and `kid`; the key set fetched once and refetched on rotation; metadata discovery;
 * scopes in both claim shapes; what an unreachable key set means.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import { InvalidTokenError, type TokenRejection } from '../src/errors.ts';
import type { IncomingRequest } from '../src/http/incoming.ts';
import { type JwtVerifierOptions, JwtVerifierUnavailableError, jwtVerifier } from '../src/jwt.ts';

const RESOURCE = 'https://mcp.example.test/mcp';

/** The check a refused token failed; a token that was accepted (or refused with no reason) fails the test. */
async function refusal(
  verdict: AuthInfo | undefined | Promise<AuthInfo | undefined>,
): Promise<TokenRejection> {
  let info: AuthInfo | undefined;
  try {
    info = await verdict;
  } catch (error) {
    if (error instanceof InvalidTokenError) return error.rejection;
    throw error;
  }
  throw new Error(`expected a refusal, got ${info === undefined ? 'undefined' : info.principal}`);
}
const REQUEST = new Request(RESOURCE, { method: 'POST' }) as unknown as IncomingRequest;

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function makeKey(kid: string, alg = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A tiny authorization server: metadata, a key set it can rotate, counters, an outage switch. */
class KeyServer {
  readonly counts = { jwks: 0, asMetadata: 0, oidcMetadata: 0, refused: 0 };
  keys: Key[] = [];
  down = false;
  metadataIssuer: string | undefined;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  get issuer(): string {
    return this.url;
  }

  get jwksUrl(): string {
    return `${this.url}/jwks`;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const json = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (this.down) {
      this.counts.refused++;
      res.writeHead(503).end();
      return;
    }
    switch (req.url) {
      case '/jwks':
        this.counts.jwks++;
        json({ keys: this.keys.map((key) => key.jwk) });
        return;
      case '/.well-known/oauth-authorization-server':
        this.counts.asMetadata++;
        json({ issuer: this.metadataIssuer ?? this.issuer, jwks_uri: this.jwksUrl });
        return;
      case '/.well-known/openid-configuration':
        this.counts.oidcMetadata++;
        res.writeHead(404).end();
        return;
      default:
        res.writeHead(404).end();
    }
  }
}

const as = new KeyServer();
let key1: Key;
let key2: Key;
let stranger: Key;

beforeAll(async () => {
  [key1, key2, stranger] = await Promise.all([makeKey('k1'), makeKey('k2'), makeKey('k1')]);
  await as.start();
});
afterAll(() => as.stop());

const now = (): number => Math.floor(Date.now() / 1000);

interface Sign {
  key?: Key;
  header?: Record<string, unknown>;
  claims?: JWTPayload;
  omit?: readonly string[];
}

/** A token as an authorization server would mint it for RESOURCE; `claims` override, `omit` drops. */
function sign({ key = key1, header = {}, claims = {}, omit = [] }: Sign = {}): Promise<string> {
  const payload: JWTPayload = {
    iss: as.issuer,
    sub: 'alice',
    aud: RESOURCE,
    client_id: 'client-1',
    scope: 'mcp:tools mcp:read',
    iat: now(),
    exp: now() + 300,
    jti: crypto.randomUUID(),
    ...claims,
  };
  for (const name of omit) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...header })
    .sign(key.privateKey);
}

/** Without the verified-token cache unless asked for: these tests watch the key set's use. */
function verifier(options: Partial<JwtVerifierOptions> = {}) {
  const verify = jwtVerifier({
    issuer: as.issuer,
    audience: RESOURCE,
    jwksUrl: as.jwksUrl,
    cache: false,
    ...options,
  });
  return (token: string) => verify(token, REQUEST);
}

function resetServer(keys: Key[]): void {
  as.keys = keys;
  as.down = false;
  as.metadataIssuer = undefined;
  as.counts.jwks = 0;
  as.counts.asMetadata = 0;
  as.counts.oidcMetadata = 0;
  as.counts.refused = 0;
}

/**
 * Moves the clock `ms` ahead without waiting: `Date` is faked (timers and I/O stay real), so the
 * key set's cache and cooldown (jose's, on `Date.now`) and the verifier's own clock see the time
 * pass. Undone after each test.
 */
function advance(ms: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + ms);
}
afterEach(() => {
  vi.useRealTimers();
});

describe('a valid token', () => {
  test('gives the principal, scopes, expiry, client and claims', async () => {
    resetServer([key1]);
    const token = await sign({ claims: { exp: 2_000_000_000 } });
    const auth = await verifier()(token);
    expect(auth).toEqual({
      principal: 'alice',
      scopes: ['mcp:tools', 'mcp:read'],
      expiresAt: 2_000_000_000,
      clientId: 'client-1',
      claims: expect.objectContaining({ sub: 'alice', aud: RESOURCE, iss: as.issuer }),
    });
    expect(Object.isFrozen(auth?.claims)).toBe(true);
    expect(JSON.stringify(auth)).not.toContain(token);
  });

  test('plain JWTs (typ JWT, or none) are accepted too; requireAtJwt accepts only at+jwt', async () => {
    resetServer([key1]);
    const verify = verifier();
    const strict = verifier({ requireAtJwt: true });
    const atJwt = await sign({ header: { typ: 'application/at+JWT' } });
    const jwt = await sign({ header: { typ: 'JWT' } });
    const none = await sign({ header: { typ: undefined } });
    const logout = await sign({ header: { typ: 'logout+jwt' } });
    expect((await verify(atJwt))?.principal).toBe('alice');
    expect((await verify(jwt))?.principal).toBe('alice');
    expect((await verify(none))?.principal).toBe('alice');
    expect(await refusal(verify(logout))).toBe('claims');
    expect((await strict(atJwt))?.principal).toBe('alice');
    expect(await refusal(strict(jwt))).toBe('claims');
    expect(await refusal(strict(none))).toBe('claims');
  });

  test('a token naming several audiences, one of them this resource, is accepted', async () => {
    resetServer([key1]);
    const token = await sign({ claims: { aud: ['https://other.example.test', RESOURCE] } });
    expect((await verifier()(token))?.principal).toBe('alice');
    const second = verifier({ audience: ['https://alias.example.test/mcp', RESOURCE] });
    expect((await second(await sign()))?.principal).toBe('alice');
  });

  test('expired within the clock skew: accepted; the skew is configurable', async () => {
    resetServer([key1]);
    const token = await sign({ claims: { exp: now() - 3 } });
    expect((await verifier()(token))?.principal).toBe('alice');
    expect(await refusal(verifier({ clockToleranceSeconds: 0 })(token))).toBe('expired');
    const early = await sign({ claims: { nbf: now() + 3 } });
    expect((await verifier()(early))?.principal).toBe('alice');
  });
});

describe('refused with the check that failed (InvalidTokenError, never a bare throw)', () => {
  const cases: [string, () => Promise<string>, TokenRejection][] = [
    ['another issuer', () => sign({ claims: { iss: 'http://127.0.0.1:1' } }), 'issuer'],
    ['no issuer', () => sign({ omit: ['iss'] }), 'issuer'],
    [
      'another resource (RFC 8707)',
      () => sign({ claims: { aud: 'https://other.example.test/mcp' } }),
      'audience',
    ],
    [
      'the resource with a trailing slash',
      () => sign({ claims: { aud: `${RESOURCE}/` } }),
      'audience',
    ],
    ['no audience', () => sign({ omit: ['aud'] }), 'audience'],
    ['expired beyond the skew', () => sign({ claims: { exp: now() - 60 } }), 'expired'],
    ['no expiry', () => sign({ omit: ['exp'] }), 'claims'],
    ['not yet valid', () => sign({ claims: { nbf: now() + 60 } }), 'not-yet-valid'],
    ['a bad signature (another key, same kid)', () => sign({ key: stranger }), 'signature'],
    ['an unknown kid', () => sign({ header: { kid: 'nope' } }), 'signature'],
    ['no subject nor client', () => sign({ omit: ['sub', 'client_id'] }), 'claims'],
    ['a numeric subject', () => sign({ claims: { sub: 42 as unknown as string } }), 'claims'],
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await sign()).split('.');
        const forged = btoa(
          JSON.stringify({ iss: as.issuer, sub: 'root', aud: RESOURCE, exp: now() + 60 }),
        )
          .replace(/=+$/, '')
          .replaceAll('+', '-')
          .replaceAll('/', '_');
        return `${h}.${forged}.${s}`;
      },
      'signature',
    ],
    [
      'alg none',
      async () => {
        const enc = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, '');
        return `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ iss: as.issuer, sub: 'alice', aud: RESOURCE, exp: now() + 60 })}.`;
      },
      'malformed',
    ],
    ['not a JWT', async () => 'opaque-token-value', 'malformed'],
    ['a JWE-shaped token', async () => 'a.b.c.d.e', 'malformed'],
    ['an empty string', async () => '', 'malformed'],
  ];

  test.each(cases)('%s: %s', async (_name, make, rejection) => {
    resetServer([key1]);
    const token = await make();
    expect(await refusal(verifier()(token))).toBe(rejection);
  });

  test('a token without a scope the verifier requires', async () => {
    resetServer([key1]);
    const verify = verifier({ requiredScopes: ['mcp:tools', 'mcp:admin'] });
    expect(await refusal(verify(await sign()))).toBe('claims');
    expect(await verify(await sign({ claims: { scope: 'mcp:admin mcp:tools' } }))).toBeDefined();
  });

  test('an algorithm outside the allowed list', async () => {
    const rsa = await makeKey('rsa', 'RS256');
    resetServer([key1, rsa]);
    const token = await sign({ key: rsa, header: { alg: 'RS256' } });
    expect((await verifier()(token))?.principal).toBe('alice');
    expect(await refusal(verifier({ algorithms: ['ES256'] })(token))).toBe('signature');
  });
});

describe('scopes and principal', () => {
  test('scopes from `scope` (space-separated) or `scp` (array, or string)', async () => {
    resetServer([key1]);
    const verify = verifier();
    const scp = await sign({ claims: { scp: ['mcp:tools', 'mcp:write'] }, omit: ['scope'] });
    expect((await verify(scp))?.scopes).toEqual(['mcp:tools', 'mcp:write']);
    const scpString = await sign({ claims: { scp: 'a b' }, omit: ['scope'] });
    expect((await verify(scpString))?.scopes).toEqual(['a', 'b']);
    const both = await sign({ claims: { scope: ' a  b ', scp: ['b', 'c', 7] } });
    expect((await verify(both))?.scopes).toEqual(['a', 'b', 'c']);
    const none = await sign({ omit: ['scope'] });
    expect((await verify(none))?.scopes).toEqual([]);
  });

  test('no `sub` (client credentials): the client is the principal; a named claim has no fallback', async () => {
    resetServer([key1]);
    const clientToken = await sign({ omit: ['sub'] });
    expect(await verifier()(clientToken)).toMatchObject({
      principal: 'client-1',
      clientId: 'client-1',
    });
    const azp = await sign({ omit: ['sub', 'client_id'], claims: { azp: 'client-2' } });
    expect(await verifier()(azp)).toMatchObject({ principal: 'client-2', clientId: 'client-2' });
    const byEmail = verifier({ principalClaim: 'email' });
    expect(await refusal(byEmail(await sign()))).toBe('claims');
    expect((await byEmail(await sign({ claims: { email: 'a@example.test' } })))?.principal).toBe(
      'a@example.test',
    );
  });
});

describe('the key set', () => {
  test('is fetched once for many verifications', async () => {
    resetServer([key1]);
    const verify = verifier();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => sign()));
    const results = await Promise.all(tokens.map((token) => verify(token)));
    expect(results.every((auth) => auth?.principal === 'alice')).toBe(true);
    for (const token of tokens.slice(0, 5)) await verify(token);
    expect(as.counts.jwks).toBe(1);
  });

  test('rotation: a new kid refetches once the cooldown has passed, not before', async () => {
    resetServer([key1]);
    const verify = verifier({ jwks: { cooldownMs: 300 } });
    expect(await verify(await sign())).toBeDefined();
    expect(as.counts.jwks).toBe(1);
    as.keys = [key1, key2]; // the server publishes its next key and signs with it
    const rotated = await sign({ key: key2 });
    expect(await refusal(verify(rotated))).toBe('signature'); // within the cooldown: no refetch
    expect(as.counts.jwks).toBe(1);
    advance(350);
    expect((await verify(rotated))?.principal).toBe('alice');
    expect(as.counts.jwks).toBe(2);
    for (let i = 0; i < 5; i++) await verify(rotated);
    expect((await verify(await sign()))?.principal).toBe('alice'); // the old key still listed
    expect(as.counts.jwks).toBe(2);
  });

  test('made-up kids do not turn into fetches (default 30 s cooldown)', async () => {
    resetServer([key1]);
    const verify = verifier();
    await verify(await sign());
    for (let i = 0; i < 10; i++) {
      expect(await refusal(verify(await sign({ header: { kid: `x${i}` } })))).toBe('signature');
    }
    expect(as.counts.jwks).toBe(1);
  });

  test('discovered from the issuer metadata once, when no jwksUrl is given', async () => {
    resetServer([key1]);
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE });
    for (let i = 0; i < 5; i++)
      expect((await verify(await sign(), REQUEST))?.principal).toBe('alice');
    expect(as.counts).toEqual({ jwks: 1, asMetadata: 1, oidcMetadata: 0, refused: 0 });
  });

  test('metadata naming another issuer is not used (RFC 8414 §3.3)', async () => {
    resetServer([key1]);
    as.metadataIssuer = 'https://evil.example.test';
    const verify = jwtVerifier({ issuer: as.issuer, audience: RESOURCE, unavailable: 'throw' });
    await expect(verify(await sign(), REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    expect(as.counts.jwks).toBe(0);
  });

  test('the fetch option is used for metadata and keys', async () => {
    resetServer([key1]);
    const seen: string[] = [];
    const verify = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    expect(await verify(await sign(), REQUEST)).toBeDefined();
    expect(seen).toEqual([`${as.issuer}/.well-known/oauth-authorization-server`, as.jwksUrl]);
  });
});

describe('an unreachable authorization server', () => {
  test('JwtVerifierUnavailableError (503) by default; undefined (401) with unavailable: unauthorized', async () => {
    resetServer([key1]);
    as.down = true;
    const token = await sign();
    expect(await verifier({ unavailable: 'unauthorized' })(token)).toBeUndefined();
    await expect(verifier()(token)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    const discovering = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      unavailable: 'throw',
    });
    await expect(discovering(token, REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    // Nothing listening at all.
    const closed = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      jwksUrl: 'http://127.0.0.1:1/jwks',
      unavailable: 'throw',
    });
    await expect(closed(token, REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    // A bad token is still just refused, even in throw mode, once keys are known.
    as.down = false;
    expect(await refusal(verifier({ unavailable: 'throw' })(await sign({ key: stranger })))).toBe(
      'signature',
    );
  });

  test('a failed discovery is not tried again for every request: one try per pause, the pause doubling', async () => {
    resetServer([key1]);
    as.down = true;
    const token = await sign();
    // The verifier's clock, moved on by hand.
    let offset = 0;
    const verify = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      cache: false,
      now: () => Date.now() + offset,
    });
    const tries = () => as.counts.refused;
    for (let i = 0; i < 5; i++)
      await expect(verify(token, REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    // Both metadata URLs, once: the four requests after it were answered from the failure.
    expect(tries()).toBe(2);
    offset += 1000;
    await expect(verify(token, REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    expect(tries()).toBe(4);
    // Now the pause is 2 s.
    offset += 1500;
    await expect(verify(token, REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    expect(tries()).toBe(4);
    as.down = false;
    offset += 500;
    expect((await verify(token, REQUEST))?.principal).toBe('alice');
  });

  test('keys already fetched keep verifying past their age while the server is down', async () => {
    resetServer([key1]);
    const lenient = verifier({ jwks: { cacheMaxAgeMs: 50 }, unavailable: 'throw' });
    const strict = verifier({
      jwks: { cacheMaxAgeMs: 50, staleIfErrorMs: 0 },
      unavailable: 'throw',
    });
    const token = await sign();
    expect(await lenient(token)).toBeDefined();
    expect(await strict(token)).toBeDefined();
    as.down = true;
    advance(80);
    expect((await lenient(token))?.principal).toBe('alice');
    expect(await refusal(lenient(await sign({ key: stranger })))).toBe('signature');
    // One probe of the server per cooldown (30 s), not one per request.
    for (let i = 0; i < 5; i++) expect((await lenient(token))?.principal).toBe('alice');
    expect(as.counts.refused).toBe(1);
    await expect(strict(token)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    as.down = false;
    expect((await strict(token))?.principal).toBe('alice');
  });
});

describe('the verified-token cache (on by default)', () => {
  /** A verifier whose key set is unusable once the server goes down (no stale keys). */
  const cached = (cache: JwtVerifierOptions['cache'] = {}) =>
    verifier({
      jwks: { cacheMaxAgeMs: 30, staleIfErrorMs: 0, cooldownMs: 0 },
      unavailable: 'throw',
      clockToleranceSeconds: 0,
      cache,
    });
  const keysGone = async (): Promise<void> => {
    as.down = true;
    advance(40);
  };

  test('a token checked once is accepted again without the key set; an unchecked one needs it', async () => {
    resetServer([key1]);
    const verify = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      jwksUrl: as.jwksUrl,
      jwks: { cacheMaxAgeMs: 30, staleIfErrorMs: 0, cooldownMs: 0 },
      unavailable: 'throw',
    });
    const seen = await sign();
    const first = await verify(seen, REQUEST);
    expect(first?.principal).toBe('alice');
    await keysGone();
    const again = await verify(seen, REQUEST);
    expect(again).toBe(first);
    // Shared by every request with the token, so nobody can change it for the others.
    expect(Object.isFrozen(again)).toBe(true);
    expect(Object.isFrozen(again?.scopes)).toBe(true);
    await expect(verify(await sign(), REQUEST)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    expect(as.counts.jwks).toBe(1);
  });

  test('cache: false checks every time', async () => {
    resetServer([key1]);
    const verify = cached(false);
    const token = await sign();
    expect(await verify(token)).toBeDefined();
    await keysGone();
    await expect(verify(token)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
  });

  test('an entry lasts at most maxAgeMs, then the token is checked again', async () => {
    resetServer([key1]);
    const verify = cached({ maxAgeMs: 200 });
    const token = await sign();
    const checkedAt = Date.now();
    expect(await verify(token)).toBeDefined();
    await keysGone();
    expect((await verify(token))?.principal).toBe('alice');
    advance(checkedAt + 220 - Date.now());
    await expect(verify(token)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
  });

  test('never past the token’s exp: an expired token is refused although it was accepted', async () => {
    resetServer([key1]);
    let offset = 0;
    const verify = verifier({
      clockToleranceSeconds: 0,
      cache: {},
      now: () => Date.now() + offset,
    });
    const exp = now() + 1;
    const token = await sign({ claims: { exp } });
    expect((await verify(token))?.principal).toBe('alice');
    // Past its exp on the verifier's clock (no sleep): refused, the cached check not used.
    offset = 1100;
    expect(await refusal(verify(token))).toBe('expired');
  });

  test('full: the oldest check goes; refused tokens never enter', async () => {
    resetServer([key1]);
    const verify = cached({ maxEntries: 2 });
    const [t1, t2, t3] = await Promise.all([sign(), sign(), sign()]);
    for (const token of [t1, t2, t3]) expect(await verify(token)).toBeDefined();
    // Refused: must not push t2 or t3 out.
    expect(await refusal(verify(await sign({ key: stranger })))).toBe('signature');
    await keysGone();
    await expect(verify(t1)).rejects.toBeInstanceOf(JwtVerifierUnavailableError);
    expect((await verify(t2))?.principal).toBe('alice');
    expect((await verify(t3))?.principal).toBe('alice');
  });

  test('a misconfigured cache throws at once', () => {
    const make = (cache: JwtVerifierOptions['cache']) => () =>
      jwtVerifier({ issuer: as.issuer, audience: RESOURCE, cache });
    expect(make({ maxEntries: 0 })).toThrow(TypeError);
    expect(make({ maxAgeMs: -1 })).toThrow(TypeError);
  });
});

test('a misconfiguration throws at once', () => {
  expect(() => jwtVerifier({ issuer: 'not a url', audience: RESOURCE })).toThrow(TypeError);
  expect(() => jwtVerifier({ issuer: 'https://as.test/?a=1', audience: RESOURCE })).toThrow(
    TypeError,
  );
  expect(() => jwtVerifier({ issuer: 'https://as.test', audience: [] })).toThrow(TypeError);
  expect(() => jwtVerifier({ issuer: 'https://as.test', audience: '' })).toThrow(TypeError);
  expect(() =>
    jwtVerifier({ issuer: 'https://as.test', audience: RESOURCE, clockToleranceSeconds: -1 }),
  ).toThrow(TypeError);
});
