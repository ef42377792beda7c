/**
 * The serverless cold path on Node: loading the core and the Node adapter, serving a handler and
 * answering a modern `tools/call` must not read the Web globals Node 20 builds on first read.
 * `Request`, `Response` and `Headers` load undici (~35 ms), `ReadableStream` Web Streams (~4 ms),
 * `crypto` Web Crypto (~4 ms): one read anywhere on that path puts its cost on every cold start
 * (`pnpm bench` measures start-up; this test keeps the reads from coming back).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, expect, test } from 'vitest';

const LAZY = [
  'Request',
  'Response',
  'Headers',
  'FormData',
  'fetch',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'crypto',
] as const;

const read = new Set<string>();
const originals = new Map<string, PropertyDescriptor>();

// Installed before anything of ours is imported (the imports below are dynamic).
for (const name of LAZY) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
  if (!descriptor) continue;
  originals.set(name, descriptor);
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: descriptor.enumerable ?? false,
    get() {
      read.add(name);
      return descriptor.get ? descriptor.get.call(globalThis) : descriptor.value;
    },
    set(value: unknown) {
      Object.defineProperty(globalThis, name, { ...descriptor, value, writable: true });
    },
  });
}

afterAll(() => {
  for (const [name, descriptor] of originals) Object.defineProperty(globalThis, name, descriptor);
});

function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('serving and answering a modern tools/call reads none of the lazily built Web globals', async () => {
  expect(originals.size).toBeGreaterThan(0);
  const { createMcpHandler, McpServer } = await import('@edge-mcp/core');
  const { serve } = await import('../src/node/index.ts');
  const server = new McpServer({ name: 'cold', version: '1.0.0' });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => String(args.text),
  );
  const running = await serve(createMcpHandler(server), {
    port: 0,
    hostname: '127.0.0.1',
    shutdownSignals: false,
  });
  try {
    const answer = await post(
      `${running.url}/mcp`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: { text: 'hello' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect([...read]).toEqual([]);
  } finally {
    await running.close();
  }
});
