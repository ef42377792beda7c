/**
 * The principal header across the Worker: only what the Worker's own `auth` vouches for reaches
 * the app or a session's object, whatever a client sends and whatever path it uses.
 */
import { describe, expect, test } from 'vitest';
import { createWorker, PRINCIPAL_HEADER, principalOf } from '../src/cloudflare/index.ts';

const FORGED = encodeURIComponent(JSON.stringify({ principal: 'alice', scopes: ['admin'] }));

/** An app without the core's fast entry (a Hono app): it can only read the header. */
function app(seen: Array<string | undefined>) {
  return {
    fetch: async (request: Request) => {
      seen.push(principalOf(request)?.principal);
      return new Response('ok');
    },
  };
}

const CTX = { waitUntil() {}, passThroughOnException() {} } as never;

describe('createWorker and the principal header', () => {
  test('a client-sent header never reaches an app; the Worker auth does', async () => {
    const seen: Array<string | undefined> = [];
    const bare = createWorker(() => app(seen));
    const withAuth = createWorker(() => app(seen), {
      auth: () => ({ principal: 'bob', scopes: [] }),
    });
    for (const path of ['/mcp', '/%6Dcp', '/other']) {
      const request = () =>
        new Request(`http://localhost${path}`, { headers: { [PRINCIPAL_HEADER]: FORGED } });
      await bare.fetch(request(), {}, CTX);
      await withAuth.fetch(request(), {}, CTX);
    }
    expect(seen).toEqual([undefined, 'bob', undefined, 'bob', undefined, 'bob']);
  });
});
