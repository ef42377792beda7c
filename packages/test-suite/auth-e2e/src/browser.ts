/**
 * A real headless Chromium (Debian's `chromium`, driven by playwright-core; never
 * `playwright install`) that signs in on the authorization server's login page and accepts its
 * consent page, as a user would, and hands back where the server redirected: the client's
 * redirect URI with the code.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH: string = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Loopback only: the authorization server's pages ask for web fonts, which must neither leave
  // the machine nor wait for a network that is not there.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: apt-get install chromium ('pnpm test' does, with scripts/system-deps.mjs), or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

export interface SignInOptions {
  /** Where the flow ends: the client's redirect URI (compared as a prefix). */
  readonly redirectUri: string;
  /** @default 'alice' */
  readonly username?: string;
  /** Any password: the development login page takes any. @default 'correct horse' */
  readonly password?: string;
  /** Per step (page load, form submit). @default 10000 */
  readonly timeoutMs?: number;
}

/**
 * Opens `authorizationUrl`, signs in on the login page (if the context has no session yet),
 * accepts the consent page (if asked), and returns the URL the authorization server redirected
 * to (its `code` and `state`, or its `error`). A `Browser` gets a fresh context (closed after);
 * a `BrowserContext` keeps its cookies, as a returning user's browser would.
 */
export async function signIn(
  browser: Browser | BrowserContext,
  authorizationUrl: string | URL,
  options: SignInOptions,
): Promise<URL> {
  const fresh = 'newContext' in browser;
  const context = fresh ? await browser.newContext() : browser;
  const page = await context.newPage();
  const timeout = options.timeoutMs ?? 10_000;
  page.setDefaultTimeout(timeout);
  try {
    await page.goto(String(authorizationUrl));
    for (let step = 0; step < 6; step++) {
      if (page.url().startsWith(options.redirectUri)) return new URL(page.url());
      const before = page.url();
      const prompt = await promptOf(page);
      if (prompt === 'login') {
        await page.fill('input[name="login"]', options.username ?? 'alice');
        await page.fill('input[name="password"]', options.password ?? 'correct horse');
      } else if (prompt !== 'consent') {
        const text = (await page.textContent('body'))?.trim().slice(0, 500);
        throw new Error(`no login or consent form at ${before}: ${text}`);
      }
      await page.click('button[type="submit"]');
      await page.waitForURL((url) => url.href !== before, { waitUntil: 'load' });
    }
    throw new Error(`still not redirected to ${options.redirectUri} at ${page.url()}`);
  } finally {
    await page.close();
    if (fresh) await context.close();
  }
}

async function promptOf(page: Page): Promise<string | undefined> {
  const field = page.locator('form input[name="prompt"]');
  return (await field.count()) === 1
    ? ((await field.getAttribute('value')) ?? undefined)
    : undefined;
}

export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback` */
  readonly redirectUri: string;
  /** Every redirect that arrived, in order. */
  readonly received: URL[];
  close(): Promise<void>;
}

/**
 * The loopback redirect target of a native client (RFC 8252 §7.3): answers a small page, so the
 * browser's navigation ends there, and records the URL.
 */
export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname === '/callback') received.push(url);
    res.writeHead(url.pathname === '/callback' ? 200 : 404, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    received,
    close: (): Promise<void> =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
