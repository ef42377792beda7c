/**
 * Where a JWT verifier finds an authorization server's keys: the issuer's metadata (RFC 8414,
 * OpenID Connect Discovery) and its `jwks_uri`. No `jose` here: plain fetch.
 *
 * @module
 */

/**
 * The verifier could not decide: the issuer's metadata or key set could not be fetched (unless
 * `unavailable: 'unauthorized'`).
 */
export class JwtVerifierUnavailableError extends Error {
  override readonly name: string = 'JwtVerifierUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function checkIssuer(issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new TypeError(`jwtVerifier: issuer must be a URL, got ${JSON.stringify(issuer)}`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
    throw new TypeError('jwtVerifier: issuer must be an http(s) URL without query or fragment');
  }
  return issuer;
}

/**
 * Where an issuer's metadata may be (RFC 8414 §3.1 inserts the well-known segment before the
 * issuer's path; OpenID Connect Discovery appends it), in the order the MCP spec's clients try.
 */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (path === '') {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The `jwks_uri` of the first metadata document that names this issuer. */
export async function discoverJwksUrl(
  issuer: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): Promise<URL> {
  let failure: unknown;
  for (const candidate of metadataUrls(issuer)) {
    try {
      const response = await fetchImpl(candidate, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        failure ??= new Error(`${candidate} answered ${response.status}`);
        continue;
      }
      const metadata: unknown = await response.json();
      if (typeof metadata !== 'object' || metadata === null) continue;
      const { issuer: named, jwks_uri: jwksUri } = metadata as Record<string, unknown>;
      // RFC 8414 §3.3: a document for another issuer must not be used.
      if (named !== issuer) {
        failure = new Error(`${candidate} names issuer ${JSON.stringify(named)}`);
        continue;
      }
      if (typeof jwksUri !== 'string') {
        failure = new Error(`${candidate} has no jwks_uri`);
        continue;
      }
      return new URL(jwksUri);
    } catch (error) {
      failure = error;
    }
  }
  throw new JwtVerifierUnavailableError(`no JSON Web Key Set found for issuer ${issuer}`, {
    cause: failure,
  });
}
