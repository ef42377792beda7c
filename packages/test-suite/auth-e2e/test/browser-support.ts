/**
 * What the browser tests share: an MCP server on `http://127.0.0.1:<port>/mcp` (the core handler
 * served by the Node adapter) that records every HTTP request reaching it, and the page-side
 * helpers that make requests from a page on another origin and report what its script could see.
 */
import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandlerOptions, McpServer } from '@edge-mcp/core';
import { type RpcAnswer, readAnswer } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import type { Page } from 'playwright-core';

/** The bearer token the auth servers' verifier accepts (as alice). */
export const TOKEN = 'browser-e2e-token';

/** An MCP server on loopback, and what reached it. */
export interface Served {
  readonly mcp: McpServer;
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** `OPTIONS /mcp`, `POST /mcp`, …: every HTTP request that reached the server, in order. */
  readonly arrived: string[];
  close(): Promise<void>;
}

/**
 * Tools: `echo` (its `region` argument mirrored into the `Mcp-Param-Region` header in 2026-07-28,
 * so a browser must be allowed to send that header too) and `whoami`.
 */
function newServer(): McpServer {
  const mcp = new McpServer({ name: 'browser-e2e', version: '1.0.0' });
  mcp.tool(
    'echo',
    {
      description: 'Echoes text (and region)',
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string' },
          region: { type: 'string', 'x-mcp-header': 'Region' },
        },
        required: ['text'],
      },
    },
    (args) => `${String(args.text)}${args.region === undefined ? '' : ` @${String(args.region)}`}`,
  );
  mcp.tool('whoami', { description: 'The caller' }, (_args, ctx) => ctx.auth?.principal ?? '-');
  return mcp;
}

/** Serves a fresh server's handler, made with `options(url)`, with `serve()` on 127.0.0.1. */
export async function startMcp(
  options: (url: string) => McpHandlerOptions = () => ({}),
): Promise<Served> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const mcp = newServer();
  const handler = createMcpHandler(mcp, options(url));
  const node: NodeServer = await serve(handler, {
    port,
    hostname: '127.0.0.1',
    shutdownSignals: false,
  });
  const arrived: string[] = [];
  node.server.prependListener('request', (req) => {
    arrived.push(`${req.method} ${new URL(req.url ?? '/', url).pathname}`);
  });
  return { mcp, url, arrived, close: () => node.close() };
}

/** What a script on the page saw of an answer. */
export interface Seen {
  readonly status: number;
  /** The response headers the page can read: the CORS-safelisted ones and those exposed. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A fetch from the page: what it saw, or what it threw (`TypeError: Failed to fetch`). */
export type Outcome = Seen | { readonly error: string };

/** `fetch(url, init)` from `page`'s origin. */
export function pageFetch(page: Page, url: string, init: RequestInit): Promise<Outcome> {
  return page.evaluate(
    async ([url, init]) => {
      try {
        const response = await fetch(url, init);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        return { status: response.status, headers, body: await response.text() };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    },
    [url, init] as const,
  );
}

/** `outcome` as a seen answer (fails the test with the error when the fetch threw). */
export function seen(outcome: Outcome): Seen {
  if ('error' in outcome) throw new Error(`the page's fetch failed: ${outcome.error}`);
  return outcome;
}

/** The JSON-RPC answer (JSON or SSE) the page read. */
export function answerOf(outcome: Outcome): Promise<RpcAnswer> {
  const { status, headers, body } = seen(outcome);
  return readAnswer(
    new Response(body === '' ? null : body, {
      status,
      headers: { 'content-type': headers['content-type'] ?? '' },
    }),
  );
}

/** Opens a GET event stream from the page and keeps its reader there; what the page saw of it. */
export function openStream(page: Page, url: string, init: RequestInit): Promise<Outcome> {
  return page.evaluate(
    async ([url, init]) => {
      try {
        const response = await fetch(url, init);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        const reader = response.body?.getReader();
        (globalThis as { mcpStream?: unknown }).mcpStream = reader;
        return { status: response.status, headers, body: '' };
      } catch (error) {
        return { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    },
    [url, init] as const,
  );
}

/**
 * Reads the page's open stream until its text contains `until` (or, without it, until it ends),
 * for at most `timeoutMs`: the text read, and whether the stream ended.
 */
export function readStream(
  page: Page,
  until: string | undefined,
  timeoutMs = 5_000,
): Promise<{ text: string; ended: boolean }> {
  return page.evaluate(
    async ([until, timeoutMs]) => {
      const reader = (globalThis as { mcpStream?: ReadableStreamDefaultReader<Uint8Array> })
        .mcpStream;
      if (reader === undefined) throw new Error('no open stream');
      const decoder = new TextDecoder();
      const deadline = Date.now() + timeoutMs;
      let text = '';
      while (until === undefined || !text.includes(until)) {
        const left = deadline - Date.now();
        if (left <= 0) return { text, ended: false };
        const chunk = await Promise.race([
          reader.read(),
          new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), left)),
        ]);
        if (chunk === 'timeout') return { text, ended: false };
        if (chunk.done) return { text, ended: true };
        text += decoder.decode(chunk.value, { stream: true });
      }
      return { text, ended: false };
    },
    [until, timeoutMs] as const,
  );
}

/** Cancels the page's open stream (the connection drops, as when a network goes away). */
export function cancelStream(page: Page): Promise<void> {
  return page.evaluate(async () => {
    const holder = globalThis as { mcpStream?: ReadableStreamDefaultReader<Uint8Array> };
    await holder.mcpStream?.cancel();
    holder.mcpStream = undefined;
  });
}

/** The `id:` of the SSE event in `text` whose data contains `marker`. */
export function eventIdOf(text: string, marker: string): string | undefined {
  const event = text.split(/\r?\n\r?\n/).find((block) => block.includes(marker));
  return event?.match(/^id: ?(.*)$/m)?.[1];
}
