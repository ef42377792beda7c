import { MCP_URL, MODERN, modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpError, McpServer } from '../src/index.ts';
import { NESTED, nestedIn } from './helpers.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'contract', version: '1.0.0' });
  s.tool('echo', { inputSchema: z.object({ text: z.string().min(1) }) }, ({ text }) => text);
  s.tool('boom', {}, () => {
    throw new Error('kaboom');
  });
  s.tool('protocol-error', {}, () => {
    throw new McpError(-32099 + 1, 'custom failure', { data: { why: 'test' } });
  });
  s.tool(
    'region',
    {
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          n: { type: 'integer', 'x-mcp-header': 'N' },
          flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
        },
      },
    },
    (args) => JSON.stringify(args),
  );
  return s;
}

const handler = createMcpHandler(server(), { maxBodyBytes: 1024 });

/**
 * Timers still pending that were started during a test. Only timers created through the global
 * functions count (the core's), not the test runner's own, which makes the check exact.
 */
const pending = new Set<unknown>();
const {
  setTimeout: realSetTimeout,
  setInterval: realSetInterval,
  clearTimeout: realClearTimeout,
  clearInterval: realClearInterval,
} = globalThis;
beforeEach(() => {
  pending.clear();
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = realSetTimeout(
      (...a: unknown[]) => {
        pending.delete(timer);
        fn(...a);
      },
      ms,
      ...args,
    );
    pending.add(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.setInterval = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = realSetInterval(fn, ms, ...args);
    pending.add(timer);
    return timer;
  }) as typeof setInterval;
  globalThis.clearTimeout = ((timer: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer);
    realClearTimeout(timer);
  }) as typeof clearTimeout;
  globalThis.clearInterval = ((timer: Parameters<typeof clearInterval>[0]) => {
    pending.delete(timer);
    realClearInterval(timer);
  }) as typeof clearInterval;
});

afterEach(() => {
  Object.assign(globalThis, {
    setTimeout: realSetTimeout,
    setInterval: realSetInterval,
    clearTimeout: realClearTimeout,
    clearInterval: realClearInterval,
  });
  // Every bad input leaves nothing behind: no in-flight entry, no timer.
  expect(handler.inFlight).toBe(0);
  expect(pending.size).toBe(0);
});

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request(MCP_URL, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

describe('HTTP contract of 2026-07-28', () => {
  test('malformed JSON is 400 with -32700 and no id', async () => {
    const answer = await readAnswer(await handler.fetch(post('{"jsonrpc":')));
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32700);
    expect('id' in answer.message).toBe(false);
  });

  test('a body that is not JSON-RPC is 400 with -32600', async () => {
    for (const body of [
      '42',
      '{"hello":"world"}',
      '{"jsonrpc":"2.0","id":null,"method":"x"}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}',
    ]) {
      const answer = await readAnswer(await handler.fetch(post(body)));
      expect(answer.status, body).toBe(400);
      expect(answer.message.error.code, body).toBe(-32600);
    }
  });

  test('a JSON-RPC response from the client is rejected', async () => {
    const answer = await readAnswer(
      await handler.fetch(post('{"jsonrpc":"2.0","id":1,"result":{}}')),
    );
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32600);
  });

  test('wrong Content-Type is 415', async () => {
    const response = await handler.fetch(
      modernRequest('tools/list', {}, { headers: { 'content-type': 'text/plain' } }),
    );
    expect(response.status).toBe(415);
  });

  test('an Accept without both types is 406', async () => {
    for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
      const response = await handler.fetch(
        modernRequest('tools/list', {}, { headers: { accept } }),
      );
      expect(response.status, accept).toBe(406);
    }
  });

  test('a batch is rejected', async () => {
    const one = JSON.parse(await modernRequest('tools/list').text());
    const answer = await readAnswer(await handler.fetch(post(JSON.stringify([one, one]))));
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32600);
  });

  test('header/body mismatches are 400 with -32020', async () => {
    const cases: Array<[string, Request]> = [
      [
        'missing version header',
        modernRequest('tools/list', {}, { headers: { 'mcp-protocol-version': '' } }),
      ],
      [
        'version header differs from _meta',
        modernRequest(
          'tools/list',
          {},
          { meta: { 'io.modelcontextprotocol/protocolVersion': 'v999' } },
        ),
      ],
      [
        'Mcp-Method differs',
        modernRequest('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } }),
      ],
      [
        'Mcp-Name differs',
        modernRequest(
          'tools/call',
          { name: 'echo', arguments: { text: 'a' } },
          { headers: { 'mcp-name': 'other' } },
        ),
      ],
      [
        'Mcp-Param differs',
        modernRequest(
          'tools/call',
          { name: 'region', arguments: { region: 'eu' } },
          { headers: { 'mcp-param-region': 'us' } },
        ),
      ],
      [
        'Mcp-Param missing',
        modernRequest('tools/call', { name: 'region', arguments: { region: 'eu' } }),
      ],
      [
        'Mcp-Param integer differs',
        modernRequest(
          'tools/call',
          { name: 'region', arguments: { n: 3 } },
          { headers: { 'mcp-param-n': '4' } },
        ),
      ],
    ];
    for (const [what, request] of cases) {
      if (what === 'missing version header') request.headers.delete('mcp-protocol-version');
      const answer = await readAnswer(await handler.fetch(request));
      expect(answer.status, what).toBe(400);
      expect(answer.message.error.code, what).toBe(-32020);
    }
  });

  test('Mcp-Param headers that match (numerically, base64-encoded, padded) are accepted', async () => {
    const encoded = `=?base64?${btoa('eu-west')}?=`;
    const answer = await readAnswer(
      await handler.fetch(
        modernRequest(
          'tools/call',
          { name: 'region', arguments: { region: 'eu-west', n: 7 } },
          { headers: { 'mcp-param-region': ` ${encoded} `, 'mcp-param-n': '07' } },
        ),
      ),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.message.result.content[0].text)).toEqual({ region: 'eu-west', n: 7 });
  });

  test('a mirrored argument nested 100,000 deep is a mismatch, not a stack overflow', async () => {
    // Its own handler: the shared one refuses bodies over 1 KiB before any header is compared.
    const roomy = createMcpHandler(server());
    for (const [property, header] of [
      ['flag', 'true'],
      ['n', '1'],
      ['region', 'eu'],
    ] as const) {
      const request = modernRequest(
        'tools/call',
        { name: 'region', arguments: { [property]: NESTED } },
        { headers: { [`mcp-param-${property}`]: header } },
      );
      const answer = await readAnswer(await roomy.fetch(await nestedIn(request, 100_000)));
      expect(answer.status, property).toBe(400);
      expect(answer.message.error.code, property).toBe(-32020);
    }
    expect(roomy.inFlight).toBe(0);
    await roomy.close();
  });

  test('an unsupported version is 400 with -32022 listing the supported ones', async () => {
    const request = modernRequest(
      'tools/list',
      {},
      {
        headers: { 'mcp-protocol-version': 'v999' },
        meta: { 'io.modelcontextprotocol/protocolVersion': 'v999' },
      },
    );
    const answer = await readAnswer(await handler.fetch(request));
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32022);
    expect(answer.message.error.data).toEqual({
      supported: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26'],
      requested: 'v999',
    });
    expect(answer.message.id).toBeDefined();
  });

  test('missing clientCapabilities or a bad log level is 400 with -32602; missing clientInfo is fine', async () => {
    const noCaps = modernRequest(
      'tools/list',
      {},
      { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } },
    );
    let answer = await readAnswer(await handler.fetch(noCaps));
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32602);
    answer = await readAnswer(
      await handler.fetch(
        modernRequest('tools/list', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'loud' } }),
      ),
    );
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32602);
    answer = await readAnswer(
      await handler.fetch(
        modernRequest(
          'tools/list',
          {},
          { meta: { 'io.modelcontextprotocol/clientInfo': undefined } },
        ),
      ),
    );
    expect(answer.status).toBe(200);
  });

  test('a request with the modern header but no _meta fails on the missing fields', async () => {
    const answer = await readAnswer(
      await handler.fetch(
        modernRequest('tools/list', {}, { body: '{"jsonrpc":"2.0","id":9,"method":"tools/list"}' }),
      ),
    );
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32602);
  });

  test('unknown and removed methods are 404 with -32601, echoing the id', async () => {
    for (const method of [
      'nope/nothing',
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'prompts/list',
    ]) {
      const answer = await readAnswer(
        await handler.fetch(modernRequest(method, {}, { id: `id-${method}` })),
      );
      expect(answer.status, method).toBe(404);
      expect(answer.message.error.code, method).toBe(-32601);
      expect(answer.message.id).toBe(`id-${method}`);
    }
  });

  test('with legacy: false, a legacy initialize gets -32022 naming the supported versions', async () => {
    const modernOnly = createMcpHandler(server(), { legacy: false });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      },
    });
    const answer = await readAnswer(await modernOnly.fetch(post(body)));
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32022);
    expect(answer.message.error.data.supported).toEqual([MODERN]);
  });

  test('GET and DELETE are 405 while no legacy era is served', async () => {
    const modernOnly = createMcpHandler(server(), { legacy: false });
    for (const method of ['GET', 'DELETE']) {
      const response = await modernOnly.fetch(
        new Request(MCP_URL, { method, headers: { accept: 'text/event-stream' } }),
      );
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  test('unknown tool and schema-invalid arguments are -32602 with the validation message', async () => {
    let answer = await readAnswer(
      await handler.fetch(modernRequest('tools/call', { name: 'missing', arguments: {} })),
    );
    expect(answer.message.error.code).toBe(-32602);
    expect(answer.message.error.message).toContain('missing');
    answer = await readAnswer(
      await handler.fetch(modernRequest('tools/call', { name: 'echo', arguments: { text: '' } })),
    );
    expect(answer.message.error.code).toBe(-32602);
    expect(answer.message.error.message).toMatch(/text/);
    expect(answer.message.error.data.issues[0].path).toBe('text');
  });

  test('a notification is accepted with 202 and no body', async () => {
    const response = await handler.fetch(
      post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
        'mcp-protocol-version': MODERN,
      }),
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  test('a body over the limit is 413, refused while reading', async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = new Uint8Array(400).fill(32);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 100) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(MCP_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await handler.fetch(request);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    expect(cancelled).toBe(true);
    const declared = await handler.fetch(post('x'.repeat(10), { 'content-length': '999999' }));
    expect(declared.status).toBe(413);
  });

  test('a handler that throws gives an error result and the server keeps serving', async () => {
    let answer = await readAnswer(
      await handler.fetch(modernRequest('tools/call', { name: 'boom' })),
    );
    expect(answer.message.result.isError).toBe(true);
    expect(answer.message.result.content[0].text).toBe('kaboom');
    answer = await readAnswer(
      await handler.fetch(modernRequest('tools/call', { name: 'protocol-error' })),
    );
    expect(answer.message.error).toEqual({
      code: -32098,
      message: 'custom failure',
      data: { why: 'test' },
    });
    answer = await readAnswer(
      await handler.fetch(
        modernRequest('tools/call', { name: 'echo', arguments: { text: 'still here' } }),
      ),
    );
    expect(answer.message.result.content[0].text).toBe('still here');
  });

  test('a foreign Host or Origin is 403; loopback and allow-listed names pass', async () => {
    const foreignHost = modernRequest('tools/list', {}, { url: 'http://evil.example.com/mcp' });
    expect((await handler.fetch(foreignHost)).status).toBe(403);
    const foreignOrigin = modernRequest(
      'tools/list',
      {},
      { headers: { origin: 'http://evil.example.com' } },
    );
    expect((await handler.fetch(foreignOrigin)).status).toBe(403);
    const localOrigin = modernRequest(
      'tools/list',
      {},
      { headers: { origin: 'http://localhost:3000' } },
    );
    expect((await handler.fetch(localOrigin)).status).toBe(200);
    const listed = createMcpHandler(server(), {
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com'],
    });
    const ok = new Request(
      'https://mcp.example.com/mcp',
      modernRequest('tools/list', {}, { headers: { origin: 'https://app.example.com' } }),
    );
    expect((await listed.fetch(ok)).status).toBe(200);
    const other = new Request(
      'https://mcp.example.com/mcp',
      modernRequest('tools/list', {}, { headers: { origin: 'https://other.example.com' } }),
    );
    expect((await listed.fetch(other)).status).toBe(403);
  });
});

describe('Mcp-Param Base64 sentinel', () => {
  test('badly padded or invalid Base64 is rejected with -32020; a literal lookalike is compared as text', async () => {
    const h = createMcpHandler(server());
    const send = (region: string, header: string) =>
      h.fetch(
        modernRequest(
          'tools/call',
          { name: 'region', arguments: { region } },
          { headers: { 'mcp-param-region': header } },
        ),
      );
    for (const header of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=']) {
      const answer = await readAnswer(await send('Hello', header));
      expect(answer.status, header).toBe(400);
      expect(answer.message.error.code, header).toBe(-32020);
    }
    expect((await send('Hello', '=?base64?SGVsbG8=?=')).status).toBe(200);
    expect((await send('SGVsbG8=', 'SGVsbG8=')).status).toBe(200);
    expect((await send('=?base64?SGVsbG8=', '=?base64?SGVsbG8=')).status).toBe(200);
  });
});

describe('Host allow-list', () => {
  test('loopback names in any form pass; others only when listed, by name or name:port', async () => {
    const h = createMcpHandler(server(), {
      allowedHosts: ['mcp.example.com', 'api.example.com:8443'],
    });
    const status = async (url: string) =>
      (await h.fetch(modernRequest('tools/list', {}, { url }))).status;
    expect(await status('http://[::1]:8787/mcp')).toBe(200);
    expect(await status('http://LOCALHOST:1/mcp')).toBe(200);
    expect(await status('http://127.0.0.1/mcp?x=1')).toBe(200);
    expect(await status('https://mcp.example.com:9999/mcp')).toBe(200);
    expect(await status('https://api.example.com:8443/mcp')).toBe(200);
    expect(await status('https://api.example.com/mcp')).toBe(403);
    expect(await status('http://localhost.evil.com/mcp')).toBe(403);
    expect(await status('http://127.0.0.2/mcp')).toBe(403);
  });
});
