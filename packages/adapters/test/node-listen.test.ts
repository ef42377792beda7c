/** Where the Node adapter says it listens, and the warning when other machines can reach it. */
import { afterEach, expect, test, vi } from 'vitest';
import { type ListenInfo, serve } from '../src/node/index.ts';
import { start } from './helpers.ts';

const handler = { fetch: () => new Response('ok') };

afterEach(() => {
  vi.restoreAllMocks();
});

test('0.0.0.0: url and onListen say all interfaces, localUrl reaches it, one console.warn', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  let told: ListenInfo | undefined;
  const node = await serve(handler, {
    port: 0,
    hostname: '0.0.0.0',
    shutdownSignals: false,
    onListen: (info) => {
      told = info;
    },
  });
  try {
    expect(node.url).toBe(`http://0.0.0.0:${node.port}`);
    expect(node.localUrl).toBe(`http://127.0.0.1:${node.port}`);
    expect(node).toMatchObject({ hostname: '0.0.0.0', address: '0.0.0.0', exposed: true });
    expect(told).toMatchObject({ url: node.url, localUrl: node.localUrl });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain(`listening on all interfaces (${node.url})`);
    expect(await (await fetch(node.localUrl)).text()).toBe('ok');
  } finally {
    await node.close();
  }
});

test('onWarning replaces console.warn; 127.0.0.1 and localhost do not warn', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const warnings: string[] = [];
  const wild = await start(handler, { hostname: '0.0.0.0', onWarning: (m) => warnings.push(m) });
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(wild.url);
  const loopback = await start(handler, { onWarning: (m) => warnings.push(m) });
  expect(loopback).toMatchObject({ url: loopback.localUrl, exposed: false });
  const local = await start(handler, { hostname: 'localhost', onWarning: (m) => warnings.push(m) });
  // localhost shows the address it bound, not the name.
  expect(local.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+$/);
  expect(warnings).toHaveLength(1);
  expect(warn).not.toHaveBeenCalled();
});
