/**
 * `ctx.request` and `trustProxy` (issue 24, item 1): a tool sees the request's headers, the
 * client's address and the URL as the client addressed it; forwarded headers count only from a
 * trusted proxy, for the client address (budgets), the Host/Origin guard and that URL, and every
 * DNS-rebinding form is still refused.
 */
import {
  legacyRequest,
  modernRequest,
  openSession,
  type RpcAnswer,
  readAnswer,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { HANDLE } from '../src/adapter.ts';
import { toResponse } from '../src/http/responses.ts';
import { createMcpHandler, type McpHandlerOptions, McpServer } from '../src/index.ts';

/** A server whose `whoami` tool answers with what `ctx.request` shows, and `hold` until released. */
function setup(options: McpHandlerOptions = {}) {
  const server = new McpServer({ name: 'proxied', version: '1' });
  const releases: Array<() => void> = [];
  server.tool('whoami', {}, (_args, ctx) =>
    JSON.stringify({
      clientAddress: ctx.request.clientAddress ?? null,
      url: ctx.request.url,
      method: ctx.request.method,
      agent: ctx.request.headers.get('x-agent'),
      hasAgent: ctx.request.headers.has('X-Agent'),
    }),
  );
  server.tool(
    'hold',
    {},
    () => new Promise<string>((resolve) => releases.push(() => resolve('held'))),
  );
  const handler = createMcpHandler(server, options);
  /** One request as an adapter hands it over: from `peer`, with `headers`, to `url`. */
  const send = (peer: string, headers: Record<string, string>, url?: string, name = 'whoami') =>
    handler[HANDLE](
      Object.assign(
        modernRequest('tools/call', { name, arguments: {} }, { headers, ...(url ? { url } : {}) }),
        { remoteAddress: peer },
      ),
    ).then(toResponse);
  return { handler, send, releases };
}

function whoami(answer: RpcAnswer): Record<string, unknown> {
  return JSON.parse(answer.message.result.content[0].text);
}

describe('ctx.request', () => {
  test('shows the headers (read-only), the peer address and the URL; forwarded headers without trustProxy are ignored', async () => {
    const { handler, send } = setup();
    const answer = await readAnswer(
      await send('192.0.2.5', {
        'x-agent': 'probe/1',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'mcp.example.test',
        'x-forwarded-proto': 'https',
        forwarded: 'for=203.0.113.9;host=mcp.example.test;proto=https',
      }),
    );
    expect(answer.status).toBe(200);
    expect(whoami(answer)).toEqual({
      clientAddress: '192.0.2.5',
      url: 'http://127.0.0.1:8787/mcp',
      method: 'POST',
      agent: 'probe/1',
      hasAgent: true,
    });
    await handler.close();
  });

  test('a legacy session call sees its request too', async () => {
    const server = new McpServer({ name: 'legacy', version: '1' });
    server.tool('agent', {}, (_args, ctx) => ctx.request.headers.get('x-agent') ?? 'none');
    const handler = createMcpHandler(server);
    const session = await openSession(handler);
    const answer = await readAnswer(
      await handler.fetch(
        legacyRequest('tools/call', { name: 'agent', arguments: {} }, session, {
          headers: { 'x-agent': 'legacy/2' },
        }),
      ),
    );
    expect(answer.message.result.content[0].text).toBe('legacy/2');
    await handler.close();
  });
});

describe('trustProxy', () => {
  test('one hop: the client address and the addressed URL come from the proxy; a client-sent X-Forwarded-For entry does not count', async () => {
    const { handler, send } = setup({ trustProxy: 1, allowedHosts: ['mcp.example.test'] });
    const answer = await readAnswer(
      await send('127.0.0.1', {
        'x-forwarded-for': '198.51.100.66, 203.0.113.9',
        'x-forwarded-host': 'mcp.example.test',
        'x-forwarded-proto': 'https',
      }),
    );
    expect(answer.status).toBe(200);
    expect(whoami(answer)).toMatchObject({
      clientAddress: '203.0.113.9',
      url: 'https://mcp.example.test/mcp',
    });
    await handler.close();
  });

  test('RFC 7239 Forwarded is read, quoted IPv6 and ports included', async () => {
    const { handler, send } = setup({
      trustProxy: ['loopback'],
      allowedHosts: ['mcp.example.test'],
    });
    const answer = await readAnswer(
      await send('::ffff:127.0.0.1', {
        forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;host="mcp.example.test:8443"',
      }),
    );
    expect(answer.status).toBe(200);
    expect(whoami(answer)).toMatchObject({
      clientAddress: '2001:db8:cafe::17',
      url: 'https://mcp.example.test:8443/mcp',
    });
    await handler.close();
  });

  test('an address list: forwarded headers from a peer outside it are ignored; inside it, trusted hops are skipped', async () => {
    const { handler, send } = setup({
      trustProxy: ['10.0.0.0/8'],
      allowedHosts: ['mcp.example.test'],
    });
    const spoofed = await readAnswer(
      await send('192.0.2.1', {
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'mcp.example.test',
      }),
    );
    expect(whoami(spoofed)).toMatchObject({
      clientAddress: '192.0.2.1',
      url: 'http://127.0.0.1:8787/mcp',
    });
    const chained = await readAnswer(
      await send('10.1.2.3', { 'x-forwarded-for': '198.51.100.1, 10.0.0.5' }),
    );
    expect(whoami(chained)).toMatchObject({ clientAddress: '198.51.100.1' });
    await handler.close();
  });

  test('every DNS-rebinding form is refused: a forwarded foreign host, a malformed one, a foreign Origin; the own origin passes', async () => {
    const { handler, send } = setup({ trustProxy: 1, allowedHosts: ['mcp.example.test'] });
    const status = async (headers: Record<string, string>) => {
      const response = await send('127.0.0.1', headers);
      await response.text();
      return response.status;
    };
    // Behind the proxy the Host the server sees is its own loopback address: only the
    // forwarded host says what the browser addressed.
    expect(await status({ 'x-forwarded-host': 'rebind.attacker.test' })).toBe(403);
    expect(await status({ forwarded: 'for=203.0.113.9;host=rebind.attacker.test' })).toBe(403);
    expect(await status({ 'x-forwarded-host': 'mcp.example.test/evil' })).toBe(403);
    expect(await status({ 'x-forwarded-host': 'mcp.example.test@rebind.attacker.test' })).toBe(403);
    expect(
      await status({
        'x-forwarded-host': 'mcp.example.test',
        origin: 'http://rebind.attacker.test',
      }),
    ).toBe(403);
    expect(
      await status({
        'x-forwarded-host': 'mcp.example.test',
        'x-forwarded-proto': 'https',
        origin: 'https://mcp.example.test',
      }),
    ).toBe(200);
    // Same-origin means scheme too: the page on http is another origin.
    expect(
      await status({
        'x-forwarded-host': 'mcp.example.test',
        'x-forwarded-proto': 'https',
        origin: 'http://mcp.example.test',
      }),
    ).toBe(403);
    await handler.close();
  });

  test('clients behind one proxy are separate principals: one at its in-flight limit does not block another', async () => {
    const { handler, send, releases } = setup({
      trustProxy: 1,
      limits: { maxInFlightPerPrincipal: 1 },
    });
    const first = send('127.0.0.1', { 'x-forwarded-for': '203.0.113.1' }, undefined, 'hold');
    await expect.poll(() => releases.length).toBe(1);
    const again = await send('127.0.0.1', { 'x-forwarded-for': '203.0.113.1' });
    expect(again.status).toBe(429);
    await again.text();
    const other = await send('127.0.0.1', { 'x-forwarded-for': '203.0.113.2' });
    expect(other.status).toBe(200);
    await other.text();
    releases.shift()?.();
    expect((await readAnswer(await first)).status).toBe(200);
    await handler.close();
  });

  test('a bad option fails at construction', () => {
    const server = new McpServer({ name: 'x', version: '1' });
    expect(() => createMcpHandler(server, { trustProxy: -1 })).toThrow(/whole number/);
    expect(() => createMcpHandler(server, { trustProxy: ['10.0.0.0/33'] })).toThrow(/CIDR/);
    expect(() => createMcpHandler(server, { trustProxy: ['proxy.internal'] })).toThrow(/CIDR/);
  });
});
