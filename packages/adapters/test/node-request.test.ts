import { Agent, request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import type { FetchHandler } from '../src/shared/types.ts';
import { rawExchange, start, within } from './helpers.ts';

/** Echoes what the adapter turned the Node request into. */
const echo: FetchHandler = {
  async fetch(request) {
    const body = await request.text();
    const headers = new Headers({ 'content-type': 'application/json', 'x-echo': 'yes' });
    headers.append('set-cookie', 'a=1; Path=/');
    headers.append('set-cookie', 'b=2; Path=/; HttpOnly');
    const result = {
      method: request.method,
      url: request.url,
      custom: request.headers.get('x-custom'),
      dup: request.headers.get('x-dup'),
      cookie: request.headers.get('cookie'),
      length: body.length,
      body: body.length > 100 ? body.slice(0, 100) : body,
    };
    return new Response(JSON.stringify(result), { status: 201, statusText: 'Made', headers });
  },
};

describe('Node request/response round trip', () => {
  test('status, headers and a POSTed body make it through', async () => {
    const { url, port } = await start(echo);
    const response = await fetch(`${url}/echo?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-custom': 'hello' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-echo')).toBe('yes');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
    expect(await response.json()).toEqual({
      method: 'POST',
      url: `http://127.0.0.1:${port}/echo?x=1`,
      custom: 'hello',
      dup: null,
      cookie: null,
      length: 40,
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
  });

  test('a multi-megabyte request body arrives whole', async () => {
    const { url } = await start(echo);
    const body = 'x'.repeat(3 * 1024 * 1024);
    const response = await fetch(`${url}/big`, { method: 'PUT', body });
    expect(await response.json()).toMatchObject({ method: 'PUT', length: body.length });
  });

  test('duplicate headers are joined as Node joins them; no Host falls back to the address', async () => {
    const { port } = await start(echo);
    const raw = await rawExchange(
      port,
      'GET /h HTTP/1.0\r\nX-Dup: a\r\nX-Dup: b\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n',
    );
    const json = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(json).toMatchObject({
      url: `http://127.0.0.1:${port}/h`,
      dup: 'a, b',
      cookie: 'a=1; b=2',
    });
  });

  test('the Host header is the URL authority; a path like //x stays a path', async () => {
    const { port } = await start(echo);
    const raw = await rawExchange(
      port,
      'GET //evil.example/x HTTP/1.1\r\nHost: mcp.example:8080\r\nConnection: close\r\n\r\n',
    );
    expect(raw).toContain('"url":"http://mcp.example:8080//evil.example/x"');
  });

  test.each(['a b', 'user@evil.example', 'evil.example/path'])(
    'an unusable Host (%s) gets a 400 without calling the handler',
    async (host) => {
      let called = false;
      const { port } = await start({
        fetch: () => {
          called = true;
          return new Response('no');
        },
      });
      const raw = await rawExchange(
        port,
        `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.startsWith('HTTP/1.1 400 ')).toBe(true);
      expect(raw).toContain('"code":-32600');
      expect(called).toBe(false);
    },
  );

  test('a body the handler never reads is drained, so keep-alive goes on', async () => {
    const { port } = await start({ fetch: () => new Response('ignored your body') });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string | undefined) =>
      new Promise<{ text: string; reused: boolean }>((resolve, reject) => {
        const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', agent }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ text, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      const first = await within(send('y'.repeat(2 * 1024 * 1024)), 'first response');
      const second = await within(send('small'), 'second response on the same socket');
      expect(first).toEqual({ text: 'ignored your body', reused: false });
      expect(second).toEqual({ text: 'ignored your body', reused: true });
    } finally {
      agent.destroy();
    }
  });

  test('HEAD answers carry headers only', async () => {
    const { url } = await start({
      fetch: () => new Response('body', { headers: { 'x-kind': 'head' } }),
    });
    const response = await fetch(url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-kind')).toBe('head');
    expect(await response.text()).toBe('');
  });
});
