import { describe, expect, test, vi } from 'vitest';
import {
  DUPLICATE_SIGNAL_MS,
  exposureWarning,
  isLoopback,
  listenInfo,
  respond,
  type SignalHooks,
  shutdownTriggers,
  signalExitCode,
} from '../src/shared/serve.ts';
import { deferred, within } from './helpers.ts';

/** Signal hooks that record what the adapter installs and let the test deliver signals. */
function fakeSignals(unsupported: string[] = []) {
  const listeners = new Map<string, Set<() => void>>();
  const exits: string[] = [];
  const hooks: SignalHooks<string> = {
    add(name, listener) {
      if (unsupported.includes(name)) return false;
      if (!listeners.has(name)) listeners.set(name, new Set());
      listeners.get(name)?.add(listener);
      return true;
    },
    remove(name, listener) {
      listeners.get(name)?.delete(listener);
    },
    exit(name) {
      exits.push(name);
    },
  };
  const send = (name: string): void => {
    for (const listener of listeners.get(name) ?? []) listener();
  };
  const count = (): number => [...listeners.values()].reduce((n, set) => n + set.size, 0);
  return { hooks, send, count, exits };
}

describe('shutdownTriggers', () => {
  test('a signal that aborted before the triggers were wired (while binding) still shuts down', async () => {
    const ran = deferred();
    const signals = fakeSignals();
    const close = shutdownTriggers(
      async () => ran.resolve(),
      ['SIGINT'],
      signals.hooks,
      AbortSignal.abort(),
    );
    // Nobody calls close(): the aborted signal alone must start the shutdown.
    await within(ran.promise, 'the shutdown');
    await close();
    expect(signals.count()).toBe(0);
  });

  test('close(), the abort signal and a process signal share one shutdown', async () => {
    const gate = deferred();
    let runs = 0;
    const signals = fakeSignals();
    const controller = new AbortController();
    const close = shutdownTriggers(
      () => {
        runs++;
        return gate.promise;
      },
      ['SIGINT', 'SIGTERM'],
      signals.hooks,
      controller.signal,
    );
    expect(signals.count()).toBe(2);

    const first = close();
    controller.abort();
    expect(close()).toBe(first);
    expect(runs).toBe(1);

    gate.resolve();
    await first;
    // Nothing is left that could keep the process alive or trigger a second run.
    expect(signals.count()).toBe(0);
    signals.send('SIGTERM');
    expect(runs).toBe(1);
    expect(signals.exits).toEqual([]);
  });

  test('a second signal during the shutdown exits; the first only starts it', async () => {
    const gate = deferred();
    const signals = fakeSignals();
    let clock = 0;
    const close = shutdownTriggers(
      () => gate.promise,
      ['SIGINT'],
      signals.hooks,
      undefined,
      () => clock,
    );
    signals.send('SIGINT');
    expect(signals.exits).toEqual([]);
    clock += DUPLICATE_SIGNAL_MS;
    signals.send('SIGINT');
    expect(signals.exits).toEqual(['SIGINT']);
    gate.resolve();
    await close();
  });

  test('the same signal again within DUPLICATE_SIGNAL_MS is one request; later, or another signal, exits', async () => {
    const gate = deferred();
    const signals = fakeSignals();
    let clock = 1_000;
    const close = shutdownTriggers(
      () => gate.promise,
      ['SIGINT', 'SIGTERM'],
      signals.hooks,
      undefined,
      () => clock,
    );
    // A process group signalled: the runtime gets it, and again from pnpm a few ms later.
    signals.send('SIGTERM');
    clock += 8;
    signals.send('SIGTERM');
    clock += DUPLICATE_SIGNAL_MS - 9;
    signals.send('SIGTERM');
    expect(signals.exits).toEqual([]);
    // Another signal is a second request at once; the same one after the window too.
    signals.send('SIGINT');
    expect(signals.exits).toEqual(['SIGINT']);
    clock += DUPLICATE_SIGNAL_MS;
    signals.send('SIGTERM');
    expect(signals.exits).toEqual(['SIGINT', 'SIGTERM']);
    gate.resolve();
    await close();
  });

  test('a duplicate arriving after a quick shutdown is still caught; the listeners go after the window', async () => {
    vi.useFakeTimers();
    try {
      const signals = fakeSignals();
      let clock = 0;
      const close = shutdownTriggers(
        async () => {},
        ['SIGTERM'],
        signals.hooks,
        undefined,
        () => clock,
      );
      signals.send('SIGTERM');
      await close(); // over before the copy pnpm passes on arrives
      clock += 8;
      expect(signals.count()).toBe(1);
      signals.send('SIGTERM');
      expect(signals.exits).toEqual([]);
      vi.advanceTimersByTime(DUPLICATE_SIGNAL_MS);
      expect(signals.count()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  test('the abort of the signal option starts the shutdown; listeners go even if it fails', async () => {
    const signals = fakeSignals(['SIGTERM']);
    const controller = new AbortController();
    const failed = deferred();
    const close = shutdownTriggers(
      () => failed.promise,
      ['SIGINT', 'SIGTERM'],
      signals.hooks,
      controller.signal,
    );
    expect(signals.count()).toBe(1); // SIGTERM unsupported: skipped
    controller.abort();
    failed.reject(new Error('boom'));
    await expect(close()).rejects.toThrow('boom');
    expect(signals.count()).toBe(0);
  });
});

describe('respond', () => {
  const request = (signal?: AbortSignal) => new Request('http://127.0.0.1/mcp', { signal });

  test('passes the request itself through and returns the handler response', async () => {
    const req = request();
    let seen: Request | undefined;
    const response = await respond(
      {
        fetch: (r) => {
          seen = r;
          return new Response('ok');
        },
      },
      req,
      () => {},
      'close',
    );
    expect(seen).toBe(req);
    expect(await response.text()).toBe('ok');
  });

  test('a throwing handler gets a JSON-RPC 500 and is reported', async () => {
    const reported: unknown[] = [];
    const failure = new Error('nope');
    const response = await respond(
      {
        fetch: () => {
          throw failure;
        },
      },
      request(),
      (error) => reported.push(error),
      'close',
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error' },
    });
    expect(reported).toEqual([failure]);
  });

  test('an abort caused by the disconnect is not reported', async () => {
    const controller = new AbortController();
    const reported: unknown[] = [];
    const req = request(controller.signal);
    const response = await respond(
      {
        fetch: (r) =>
          new Promise((_, reject) => {
            r.signal.addEventListener('abort', () => reject(r.signal.reason));
            controller.abort();
          }),
      },
      req,
      (error) => reported.push(error),
      'close',
    );
    expect(response.status).toBe(500);
    expect(reported).toEqual([]);
  });
});

test('listenInfo: the bound address as it is, a loopback URL to reach a wildcard bind', () => {
  expect(listenInfo('127.0.0.1', 8787)).toEqual({
    url: 'http://127.0.0.1:8787',
    localUrl: 'http://127.0.0.1:8787',
    port: 8787,
    hostname: '127.0.0.1',
    address: '127.0.0.1',
    exposed: false,
  });
  expect(listenInfo('0.0.0.0', 1)).toMatchObject({
    url: 'http://0.0.0.0:1',
    localUrl: 'http://127.0.0.1:1',
    exposed: true,
  });
  expect(listenInfo('::', 1)).toMatchObject({ url: 'http://[::]:1', localUrl: 'http://[::1]:1' });
  expect(listenInfo('::1', 1)).toMatchObject({ url: 'http://[::1]:1', exposed: false });
  // What was bound, not what was asked: localhost is 127.0.0.1 here.
  expect(listenInfo('localhost', 1, '127.0.0.1')).toMatchObject({
    url: 'http://127.0.0.1:1',
    hostname: 'localhost',
    exposed: false,
  });
  expect(listenInfo('192.168.1.20', 1)).toMatchObject({
    url: 'http://192.168.1.20:1',
    localUrl: 'http://192.168.1.20:1',
    exposed: true,
  });
});

test('loopback addresses, and the one warning for the others', () => {
  for (const address of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
    expect(isLoopback(address), address).toBe(true);
  for (const address of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.20', 'fe80::1', 'example.com'])
    expect(isLoopback(address), address).toBe(false);
  expect(exposureWarning(listenInfo('127.0.0.1', 1))).toBeUndefined();
  expect(exposureWarning(listenInfo('0.0.0.0', 8787))).toMatch(
    /^\[edge-mcp\] listening on all interfaces \(http:\/\/0\.0\.0\.0:8787\): anyone who can connect to port 8787 can call its tools\./,
  );
  expect(exposureWarning(listenInfo('10.0.0.5', 8787))).toContain(
    'listening on http://10.0.0.5:8787, an address other machines can reach',
  );
});

test('signalExitCode', () => {
  expect(signalExitCode('SIGINT')).toBe(130);
  expect(signalExitCode('SIGTERM')).toBe(143);
});
