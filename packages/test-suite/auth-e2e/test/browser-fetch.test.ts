/**
 * A browser client with raw `fetch`, in a real headless Chromium, on another loopback origin
 * (`http://localhost:<port>`) than the MCP server (`http://127.0.0.1:<port>/mcp`, the core handler
 * on the Node adapter): both protocol eras work with the `cors` option and fail without it, the
 * browser itself refusing (no test double decides what a browser may read).
 */
import { type AuthInfo, MODERN_VERSION } from '@edge-mcp/core';
import {
  initializeParams,
  LEGACY,
  legacy,
  legacyDelete,
  legacyGet,
  modern,
  notification,
  openSession,
} from '@edge-mcp/test-kit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium } from '../src/browser.ts';
import { type PageServer, startPageServer } from '../src/page-server.ts';
import {
  answerOf,
  cancelStream,
  eventIdOf,
  openStream,
  pageFetch,
  readStream,
  type Served,
  seen,
  startMcp,
  TOKEN,
} from './browser-support.ts';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let site: PageServer;
/** Every console message of the page (Chromium reports CORS refusals there). */
const consoleLines: string[] = [];
/** `cors: { origins: [the page's origin] }` */
let open: Served;
/** No `cors` option. */
let closed: Served;
/** `auth` and `cors`. */
let authed: Served;
/** `auth` without `cors`. */
let authedOnly: Served;

const verify = (token: string): AuthInfo | undefined =>
  token === TOKEN ? { principal: 'alice', scopes: ['mcp:tools'] } : undefined;

function auth(url: string) {
  return {
    verify,
    resource: url,
    authorizationServers: ['http://127.0.0.1:9/'],
    scopesSupported: ['mcp:tools'],
  };
}

beforeAll(async () => {
  [browser, site] = await Promise.all([launchChromium(), startPageServer()]);
  const origins = [site.origin];
  [open, closed, authed, authedOnly] = await Promise.all([
    startMcp(() => ({ cors: { origins } })),
    startMcp(),
    startMcp((url) => ({ auth: auth(url), cors: { origins } })),
    startMcp((url) => ({ auth: auth(url) })),
  ]);
  context = await browser.newContext();
  page = await context.newPage();
  page.on('console', (message) => {
    consoleLines.push(message.text());
  });
  await page.goto(site.url);
  expect(await page.evaluate(() => location.origin)).toBe(site.origin);
});

afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), site?.close()]);
  await Promise.all([open, closed, authed, authedOnly].map((served) => served?.close()));
});

const ECHO = { name: 'echo', arguments: { text: 'hi', region: 'eu' } };

/** The 2026-07-28 tools/call a conforming client sends: every header, `_meta` in the body. */
function modernEcho(headers: Record<string, string> = {}): RequestInit {
  return modern('tools/call', ECHO, { headers: { 'mcp-param-region': 'eu', ...headers } });
}

function textOf(message: Record<string, any>): string {
  return message.result?.content?.[0]?.text;
}

describe('with cors: { origins: [the page origin] }', () => {
  test('2026-07-28 tools/call (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-Region, _meta)', async () => {
    open.arrived.length = 0;
    const init = modernEcho();
    expect(init.headers).toMatchObject({
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-param-region': 'eu',
    });
    const outcome = await pageFetch(page, open.url, init);
    const answer = await answerOf(outcome);
    expect(answer.status).toBe(200);
    expect(textOf(answer.message)).toBe('hi @eu');
    // A real cross-origin exchange: the browser asked first (this is the first request to this
    // server, so no preflight answer is cached yet).
    expect(open.arrived).toEqual(['OPTIONS /mcp', 'POST /mcp']);
  });

  test('a 2025-11-25 session: initialize (Mcp-Session-Id readable), tools/call, GET stream, Last-Event-ID, DELETE', async () => {
    const init = await pageFetch(page, open.url, legacy('initialize', initializeParams(LEGACY)));
    const { headers } = seen(init);
    expect((await answerOf(init)).message.result?.protocolVersion).toBe(LEGACY);
    // Exposed: without Access-Control-Expose-Headers the page would read null here.
    const session = headers['mcp-session-id'];
    expect(session).toMatch(/.+/);
    const headed = { headers: { 'mcp-protocol-version': LEGACY } };
    const initialized = await pageFetch(
      page,
      open.url,
      notification('notifications/initialized', undefined, session, { version: LEGACY }),
    );
    expect(seen(initialized).status).toBe(202);

    const call = await pageFetch(
      page,
      open.url,
      legacy('tools/call', { name: 'echo', arguments: { text: 'legacy' } }, session, headed),
    );
    expect(textOf((await answerOf(call)).message)).toBe('legacy');

    const stream = seen(
      await openStream(page, open.url, legacyGet(session, undefined, { version: LEGACY })),
    );
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const LIST_CHANGED = '"method":"notifications/tools/list_changed"';
    open.mcp.notifyListChanged('tools');
    const first = await readStream(page, LIST_CHANGED);
    const firstId = eventIdOf(first.text, LIST_CHANGED);
    expect(firstId).toMatch(/.+/);

    // The connection drops; what is sent meanwhile is replayed on a GET with Last-Event-ID.
    await cancelStream(page);
    open.mcp.notifyListChanged('tools');
    const resumed = seen(
      await openStream(page, open.url, legacyGet(session, firstId, { version: LEGACY })),
    );
    expect(resumed.status).toBe(200);
    const replayed = await readStream(page, LIST_CHANGED);
    const replayedId = eventIdOf(replayed.text, LIST_CHANGED);
    expect(replayedId).toMatch(/.+/);
    expect(replayedId).not.toBe(firstId);

    const deleted = seen(
      await pageFetch(page, open.url, legacyDelete(session as string, { version: LEGACY })),
    );
    expect(deleted.status).toBeLessThan(300);
    // Ending the session ends its stream.
    expect((await readStream(page, undefined)).ended).toBe(true);
    const after = await pageFetch(
      page,
      open.url,
      legacy('tools/call', { name: 'echo', arguments: { text: 'gone' } }, session, headed),
    );
    expect(seen(after).status).toBe(404);
  });

  test('a page on an origin not in the list is refused (the preflight gets 403)', async () => {
    const other = await context.newPage();
    try {
      await other.goto(site.otherOriginUrl);
      open.arrived.length = 0;
      const outcome = await pageFetch(other, open.url, modernEcho());
      expect(outcome).toEqual({ error: 'TypeError: Failed to fetch' });
      expect(open.arrived).toEqual(['OPTIONS /mcp']);
    } finally {
      await other.close();
    }
  });
});

describe('without cors', () => {
  test('every request from the page fails: the browser stops at the preflight', async () => {
    closed.arrived.length = 0;
    consoleLines.length = 0;
    const refused = { error: 'TypeError: Failed to fetch' };
    expect(await pageFetch(page, closed.url, modernEcho())).toEqual(refused);
    expect(
      await pageFetch(page, closed.url, legacy('initialize', initializeParams(LEGACY))),
    ).toEqual(refused);
    // A session opened from Node (no Origin): the page cannot use it either.
    const session = await openSession(closed.url);
    const headed = { headers: { 'mcp-protocol-version': LEGACY } };
    const call = legacy('tools/call', { name: 'echo', arguments: { text: 'x' } }, session, headed);
    expect(await pageFetch(page, closed.url, call)).toEqual(refused);
    expect(
      await openStream(page, closed.url, legacyGet(session, undefined, { version: LEGACY })),
    ).toEqual(refused);
    expect(await pageFetch(page, closed.url, legacyDelete(session, { version: LEGACY }))).toEqual(
      refused,
    );

    // Only the page's preflights reached the server (answered 405), never the requests themselves;
    // the two POSTs are Node's initialize and notifications/initialized.
    const preflight = 'OPTIONS /mcp';
    expect(closed.arrived).toEqual([
      ...[preflight, preflight],
      ...['POST /mcp', 'POST /mcp'],
      ...[preflight, preflight, preflight],
    ]);
    // The DELETE never ran: the session is alive.
    const alive = await fetch(closed.url, call);
    expect(alive.status).toBe(200);
    await alive.text();
    // Chromium's own verdict, once per request (console events arrive asynchronously).
    await expect
      .poll(() => consoleLines.filter((line) => line.includes('blocked by CORS policy')).length)
      .toBe(5);
    expect(consoleLines.find((line) => line.includes('blocked by CORS policy'))).toContain(
      `from origin '${site.origin}'`,
    );
  });
});

describe('with auth and cors', () => {
  test('without a token: a 401 the page reads, WWW-Authenticate exposed, the metadata fetched cross-origin', async () => {
    const unauthorized = seen(await pageFetch(page, authed.url, modernEcho()));
    expect(unauthorized.status).toBe(401);
    const metadataUrl = authed.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
    expect(unauthorized.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    const wrong = seen(
      await pageFetch(page, authed.url, modernEcho({ authorization: 'Bearer nope' })),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);

    // As an SDK fetches it: with MCP-Protocol-Version (a preflighted request), and plainly.
    const asked: Record<string, string>[] = [{ 'mcp-protocol-version': LEGACY }, {}];
    for (const headers of asked) {
      const metadata = seen(await pageFetch(page, metadataUrl, { headers }));
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.body)).toMatchObject({
        resource: authed.url,
        authorization_servers: ['http://127.0.0.1:9/'],
        scopes_supported: ['mcp:tools'],
      });
    }
  });

  test('with the token: both eras work as alice', async () => {
    const authorization = `Bearer ${TOKEN}`;
    const call = await pageFetch(
      page,
      authed.url,
      modern('tools/call', { name: 'whoami', arguments: {} }, { headers: { authorization } }),
    );
    expect(textOf((await answerOf(call)).message)).toBe('alice');

    const init = await pageFetch(
      page,
      authed.url,
      legacy('initialize', initializeParams(LEGACY), undefined, { headers: { authorization } }),
    );
    const session = seen(init).headers['mcp-session-id'];
    expect(session).toMatch(/.+/);
    const headers = { authorization, 'mcp-protocol-version': LEGACY };
    await pageFetch(
      page,
      authed.url,
      notification('notifications/initialized', undefined, session, { headers }),
    );
    const whoami = await pageFetch(
      page,
      authed.url,
      legacy('tools/call', { name: 'whoami', arguments: {} }, session, { headers }),
    );
    expect(textOf((await answerOf(whoami)).message)).toBe('alice');
    const deleted = seen(
      await pageFetch(page, authed.url, legacyDelete(session as string, { headers })),
    );
    expect(deleted.status).toBeLessThan(300);
  });

  test('auth without cors: the metadata is still public to any origin, the endpoint is not', async () => {
    const metadataUrl = authedOnly.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp');
    const metadata = seen(
      await pageFetch(page, metadataUrl, { headers: { 'mcp-protocol-version': LEGACY } }),
    );
    expect(JSON.parse(metadata.body).resource).toBe(authedOnly.url);
    expect(
      await pageFetch(
        page,
        authedOnly.url,
        modern(
          'tools/call',
          { name: 'whoami', arguments: {} },
          {
            headers: { authorization: `Bearer ${TOKEN}` },
          },
        ),
      ),
    ).toEqual({ error: 'TypeError: Failed to fetch' });
  });
});
