import { describe, expect, test } from 'vitest';
import { start } from './helpers.ts';

const INTERNAL_ERROR = { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' } };

describe('handler errors', () => {
  const cases: [string, (request: Request) => Response | Promise<Response>][] = [
    [
      'throws',
      () => {
        throw new Error('sync boom');
      },
    ],
    ['rejects', () => Promise.reject(new Error('async boom'))],
    ['returns a non-Response', () => Promise.resolve(null as unknown as Response)],
    [
      'returns a used body',
      async () => {
        const used = new Response('once');
        await used.text();
        return used;
      },
    ],
  ];
  test.each(cases)(
    'a handler that %s gets a JSON-RPC 500, is reported, and the server keeps serving',
    async (_name, failing) => {
      const errors: unknown[] = [];
      const { url } = await start(
        {
          fetch(request) {
            return new URL(request.url).pathname === '/ok' ? new Response('ok') : failing(request);
          },
        },
        { onError: (error) => errors.push(error) },
      );
      const response = await fetch(`${url}/boom`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual(INTERNAL_ERROR);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(Error);

      const next = await fetch(`${url}/ok`);
      expect(await next.text()).toBe('ok');
    },
  );

  test('a throwing onError does not take the process down', async () => {
    const { url } = await start(
      {
        fetch() {
          throw new Error('boom');
        },
      },
      {
        onError() {
          throw new Error('reporter broke too');
        },
      },
    );
    expect((await fetch(url)).status).toBe(500);
    expect((await fetch(url)).status).toBe(500);
  });
});
