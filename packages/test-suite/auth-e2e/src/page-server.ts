/**
 * The web page of a browser client: a tiny site on its own loopback origin, so that what the page
 * sends to an MCP server on another origin is a cross-origin request, under the browser's CORS
 * rules.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageFile {
  readonly contentType: string;
  readonly body: string | Uint8Array;
}

export interface PageServerOptions {
  /** Files besides the page (`/`), by path: e.g. `{ '/client.js': { contentType, body } }`. */
  readonly files?: Readonly<Record<string, PageFile>>;
  /** `<script src>`s the page loads (classic scripts, in order), e.g. `['/client.js']`. */
  readonly scripts?: readonly string[];
}

export interface PageServer {
  /** `http://localhost:<port>`: the page's origin, another origin (and site) than `127.0.0.1`. */
  readonly origin: string;
  /** `http://localhost:<port>/`: the page. */
  readonly url: string;
  /** The same page on `http://127.0.0.1:<port>/`: one more origin, for "not allowed" cases. */
  readonly otherOriginUrl: string;
  close(): Promise<void>;
}

/**
 * Serves an empty HTML page (and `files`) on `127.0.0.1`, addressed as `http://localhost:<port>`:
 * an origin of its own, apart from an MCP server on `http://127.0.0.1:<other port>`.
 */
export async function startPageServer(options: PageServerOptions = {}): Promise<PageServer> {
  const files = options.files ?? {};
  const scripts = (options.scripts ?? []).map((src) => `<script src="${src}"></script>`).join('');
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>browser client</title>${scripts}</head><body></body></html>`;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    const file =
      path === '/' ? { contentType: 'text/html; charset=utf-8', body: page } : files[path];
    if (file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType, 'cache-control': 'no-store' });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    url: `http://localhost:${port}/`,
    otherOriginUrl: `http://127.0.0.1:${port}/`,
    close: (): Promise<void> =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
