/**
 * `serve()`'s own health routes and its drain (issue 24, item 2), on Node: `/healthz` and
 * `/readyz` answer before the handler; a shutdown with `graceMs` turns `/readyz` 503 at once and
 * keeps listening (the handler answers new work itself) until the handler's close settled; then
 * the server stops. Deno and Bun run the same through the example app (test-suite apps-start).
 */
import { describe, expect, test, vi } from 'vitest';
import type { FetchHandler } from '../src/shared/types.ts';
import { deferred, start } from './helpers.ts';

function handlerWithClose() {
  const closing = deferred();
  const handler: FetchHandler = {
    fetch: (request) =>
      Promise.resolve(new Response(`handler saw ${new URL(request.url).pathname}`)),
    close: vi.fn(() => closing.promise),
  };
  return { handler, closing };
}

describe('health routes', () => {
  test('/healthz and /readyz answer 200 before the handler; HEAD too; other methods 405; other paths reach the handler', async () => {
    const { handler, closing } = handlerWithClose();
    const { url } = await start(handler);
    const live = await fetch(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/readyz?verbose`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`, { method: 'HEAD' })).status).toBe(200);
    const posted = await fetch(`${url}/healthz`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(await (await fetch(`${url}/healthzz`)).text()).toBe('handler saw /healthzz');
    expect(await (await fetch(`${url}/mcp`)).text()).toBe('handler saw /mcp');
    closing.resolve();
  });

  test('health: false leaves the paths to the handler', async () => {
    const { handler, closing } = handlerWithClose();
    const { url } = await start(handler, { health: false });
    expect(await (await fetch(`${url}/readyz`)).text()).toBe('handler saw /readyz');
    closing.resolve();
  });
});

describe('graceMs', () => {
  test('the shutdown turns /readyz 503 at once, hands the grace to handler.close and keeps listening until it settled', async () => {
    const { handler, closing } = handlerWithClose();
    const server = await start(handler, { graceMs: 5_000 });
    const closed = server.close();
    expect(handler.close).toHaveBeenCalledWith({ graceMs: 5_000 });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Still listening while the handler drains: its own answers reach the client.
    expect(await (await fetch(`${server.url}/mcp`)).text()).toBe('handler saw /mcp');
    closing.resolve();
    await closed;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  test('without a grace the shutdown stops listening at once and closes the handler without options', async () => {
    const { handler, closing } = handlerWithClose();
    const server = await start(handler);
    const closed = server.close();
    expect(handler.close).toHaveBeenCalledWith();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    closing.resolve();
    await closed;
  });
});
