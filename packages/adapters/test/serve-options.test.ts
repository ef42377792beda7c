/**
 * A misspelt option of an adapter entry used to be ignored (`prot: 3000`: the server on the
 * default port, silently). Each entry now refuses an unknown option name with a `TypeError` that
 * names it and the nearest known one, before it binds or touches its runtime.
 */
import { describe, expect, test } from 'vitest';
import { serve as serveBun } from '../src/bun/index.ts';
import { createSessionWorker, createWorker, defineSessionObject } from '../src/cloudflare/index.ts';
import { serve as serveDeno } from '../src/deno/index.ts';
import { mcp } from '../src/hono/index.ts';
import { serve as serveNode, toNodeListener } from '../src/node/index.ts';
import type { FetchHandler } from '../src/shared/types.ts';

const handler: FetchHandler = { fetch: async () => new Response('ok') };

describe.each([
  ['node', serveNode],
  ['deno', serveDeno],
  ['bun', serveBun],
])('%s serve()', (_runtime, serve) => {
  test.each([
    ['prot', 'port'],
    ['hostName', 'hostname'],
    ['onlisten', 'onListen'],
    ['shutdownSignal', 'shutdownSignals'],
  ])('refuses "%s", naming "%s", without listening', async (typo, meant) => {
    // An aborted signal: had serve() gone on, it would reject without listening, differently.
    const options = { signal: AbortSignal.abort(), [typo]: 3000 } as never;
    await expect(serve(handler, options)).rejects.toThrow(
      new TypeError(`serve(): unknown option "${typo}" — did you mean "${meant}"?`),
    );
  });

  test('a name near none is refused with the list of them', async () => {
    const options = { signal: AbortSignal.abort(), tls: {} } as never;
    await expect(serve(handler, options)).rejects.toThrow(
      /^serve\(\): unknown option "tls" \(known: port, hostname, signal, /,
    );
  });
});

test('node serve() refuses its own options misspelt too', async () => {
  const options = { signal: AbortSignal.abort(), requestTimout: 1 } as never;
  await expect(serveNode(handler, options)).rejects.toThrow(
    'serve(): unknown option "requestTimout" — did you mean "requestTimeout"?',
  );
  expect(() => toNodeListener(handler, { onErorr: () => {} } as never)).toThrow(
    'toNodeListener(): unknown option "onErorr" — did you mean "onError"?',
  );
});

test('hono mcp() and the Cloudflare entries refuse unknown options', () => {
  expect(() => mcp(handler, { auht: () => undefined } as never)).toThrow(
    'mcp(): unknown option "auht" — did you mean "auth"?',
  );
  expect(() => createWorker(() => handler, { aut: () => undefined } as never)).toThrow(
    'createWorker(): unknown option "aut" — did you mean "auth"?',
  );
  expect(() =>
    createSessionWorker({
      sessions: () => ({}) as never,
      build: () => handler,
      paht: '/rpc',
    } as never),
  ).toThrow('createSessionWorker(): unknown option "paht" — did you mean "path"?');
  // The config is built when the object is constructed; the check comes before any storage use.
  const SessionObject = defineSessionObject(
    () => ({ server: {} as never, idleTimeout: 1 }) as never,
  );
  expect(() => new SessionObject({} as never, {})).toThrow(
    'defineSessionObject(): unknown option "idleTimeout" — did you mean "idleTimeoutMs"?',
  );
});
