/**
 * Small HTTP client helpers for setup and side-channel calls. Each request uses its own
 * connection (`agent: false`) unless given an agent, so the client never holds an idle keep-alive
 * socket that could delay a server's exit.
 */
import { type Agent, type IncomingHttpHeaders, request } from 'node:http';
import { sseMessages } from '@edge-mcp/test-kit';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** `agent`: a keep-alive agent of the caller's (a load loop's); by default a connection of its own. */
export function httpRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const { method = 'GET', headers, agent = false } = init;
    const req = request(url, { method, headers, agent });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export async function getJson<T>(url: string): Promise<T> {
  const answer = await httpRequest(url);
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body) as T;
}

/** The JSON-RPC message of a JSON or SSE answer (the last message of a stream). */
export function jsonRpcOf(answer: HttpAnswer): { result?: unknown; error?: unknown } | undefined {
  const text = answer.body.trim();
  if (text.startsWith('{')) return JSON.parse(text);
  return sseMessages(answer.body).at(-1);
}
