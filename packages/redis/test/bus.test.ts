import type { ClusterEvent } from '@edge-mcp/core/cluster';
import { describe, expect, test } from 'vitest';
import type { RedisContext } from '../src/backend.ts';
import type { BusEnvelope } from '../src/bus-messages.ts';
import { context, errors, namespace, until, useRedis } from './helpers.ts';

const redis = useRedis(true);

/** Two or three instances of one namespace on the file's Redis. */
async function cluster(count: number, onError?: (error: Error, where: string) => void) {
  const ns = namespace();
  const made: RedisContext[] = [];
  for (let i = 0; i < count; i++)
    made.push(await context(redis().url, { namespace: ns, ...(onError ? { onError } : {}) }));
  return made;
}

/** Collects every message of `kind` an instance receives. */
function collect(instance: RedisContext, kind: BusEnvelope['k']) {
  const seen: Array<{ message: BusEnvelope; channel: string }> = [];
  instance.bus.on(kind, (message, channel) => seen.push({ message, channel }));
  return seen;
}

describe('the bus', () => {
  test('broadcast reaches every other instance, not the sender', async () => {
    const [a, b, c] = (await cluster(3)) as [RedisContext, RedisContext, RedisContext];
    const atA = collect(a, 'cancel');
    const atB = collect(b, 'cancel');
    const atC = collect(c, 'cancel');
    expect(await a.bus.broadcast({ k: 'cancel', s: 'S1', r: 7 })).toBe(3);
    await until(() => atB.length === 1 && atC.length === 1, 'both receivers');
    expect(atB[0]).toEqual({
      message: { v: 1, o: a.instance.tag, k: 'cancel', s: 'S1', r: 7 },
      channel: 'broadcast',
    });
    expect(atA).toEqual([]);
    expect(a.bus.stats().published).toBe(1);
    expect(b.bus.stats().received).toBe(1);
  });

  test('targeted: only the target gets it; 0 receivers for a tag nobody listens to', async () => {
    const [a, b, c] = (await cluster(3)) as [RedisContext, RedisContext, RedisContext];
    const atB = collect(b, 'resp');
    const atC = collect(c, 'resp');
    const message = { k: 'resp', s: 'S1', id: 'sabc.1', result: { ok: true } } as const;
    expect(await a.bus.send(b.instance.tag, message)).toBe(1);
    await until(() => atB.length === 1, 'the target');
    expect(atB[0]?.channel).toBe('targeted');
    expect(atB[0]?.message).toMatchObject({
      o: a.instance.tag,
      id: 'sabc.1',
      result: { ok: true },
    });
    expect(atC).toEqual([]);
    expect(await a.bus.send('zzzzzzzzzz', message)).toBe(0);
    expect(await a.instance.alive('zzzzzzzzzz')).toBe(false);
  });

  test('messages of one sender arrive in order', async () => {
    const [a, b] = (await cluster(2)) as [RedisContext, RedisContext];
    const atB = collect(b, 'ev');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        a.bus.send(b.instance.tag, {
          k: 'ev',
          s: 'S',
          st: 'x.1',
          n: 'n',
          id: `x.1-${i}`,
          m: `${i}`,
        }),
      ),
    );
    await until(() => atB.length === 200, 'every event');
    expect(atB.map(({ message }) => (message as BusEnvelope<'ev'>).m)).toEqual(
      Array.from({ length: 200 }, (_, i) => `${i}`),
    );
  });

  test('deliver: published when the target listens, inboxed while its subscriber is away, gone without liveness', async () => {
    const [a, b] = (await cluster(2)) as [RedisContext, RedisContext];
    const atB = collect(b, 'resp');
    expect(await a.bus.deliver(b.instance.tag, { k: 'resp', s: 'S', id: 1, result: {} })).toBe(
      'delivered',
    );
    await until(() => atB.length === 1, 'the live delivery');

    // b's subscriber goes away; its liveness key stays (it is reconnecting, not dead).
    await b.bus.close();
    expect(await a.bus.send(b.instance.tag, { k: 'resp', s: 'S', id: 2, result: {} })).toBe(0);
    expect(await a.instance.alive(b.instance.tag)).toBe(true);
    expect(await a.bus.deliver(b.instance.tag, { k: 'resp', s: 'S', id: 3, result: {} })).toBe(
      'inboxed',
    );
    expect(
      await a.bus.deliver(b.instance.tag, {
        k: 'resp',
        s: 'S',
        id: 4,
        error: { code: 1, message: 'no' },
      }),
    ).toBe('inboxed');
    const inbox = b.keys.inbox(b.instance.tag);
    expect(await a.connection.command(['LLEN', inbox])).toBe(2);
    expect(await a.connection.command(['PTTL', inbox])).toBeGreaterThan(50_000);
    // Back: the inbox is drained at start, in order.
    await b.bus.start();
    expect(atB.map(({ message }) => (message as BusEnvelope<'resp'>).id)).toEqual([1, 3, 4]);
    expect(await a.connection.command(['EXISTS', inbox])).toBe(0);

    // Without a liveness key the target is gone: nothing is kept for it.
    await b.instance.stop();
    await b.bus.close();
    expect(await a.bus.deliver(b.instance.tag, { k: 'resp', s: 'S', id: 5, result: {} })).toBe(
      'gone',
    );
    expect(await a.connection.command(['EXISTS', inbox])).toBe(0);
  });

  test('the heartbeat drains what reached the inbox while subscribed', async () => {
    const [a, b] = (await cluster(2)) as [RedisContext, RedisContext];
    const atB = collect(b, 'resp');
    // A message pushed straight to the inbox (as if published while b reconnected).
    const text = JSON.stringify({ v: 1, o: a.instance.tag, k: 'resp', s: 'S', id: 9, result: {} });
    await a.connection.command(['RPUSH', b.keys.inbox(b.instance.tag), text]);
    await b.instance.beat();
    expect(atB.map(({ message }) => (message as BusEnvelope<'resp'>).id)).toEqual([9]);
  });

  test('the ClusterBus part: list and resource events raised on one instance reach the others', async () => {
    const [a, b, c] = (await cluster(3)) as [RedisContext, RedisContext, RedisContext];
    const delivered = new Map<RedisContext, ClusterEvent[]>([
      [a, []],
      [b, []],
      [c, []],
    ]);
    for (const [instance, list] of delivered)
      instance.bus.bind({ deliver: (event) => list.push(event) });
    a.bus.publish({ kind: 'list-changed', list: 'tools' });
    a.bus.publish({ kind: 'resource-updated', uri: 'file:///a.txt' });
    await until(() => delivered.get(c)?.length === 2 && delivered.get(b)?.length === 2, 'b and c');
    expect(delivered.get(b)).toEqual([
      { kind: 'list-changed', list: 'tools' },
      { kind: 'resource-updated', uri: 'file:///a.txt' },
    ]);
    expect(delivered.get(a)).toEqual([]);
  });

  test('messages of another version or an unknown kind are ignored and reported once', async () => {
    const seen = errors();
    const [a, b] = (await cluster(2, seen.onError)) as [RedisContext, RedisContext];
    const atB = collect(b, 'cancel');
    const channel = b.keys.channel(b.instance.tag);
    for (const text of [
      JSON.stringify({ v: 2, o: a.instance.tag, k: 'cancel', s: 'S', r: 1 }),
      JSON.stringify({ v: 1, o: a.instance.tag, k: 'teleport' }),
      JSON.stringify({ v: 1, o: a.instance.tag, k: 'teleport' }),
      'not json',
      JSON.stringify({ v: 1, o: a.instance.tag, k: 'cancel', s: 'S', r: 2 }),
    ])
      await a.connection.command(['PUBLISH', channel, text]);
    await until(() => atB.length === 1, 'the valid one');
    const reported = seen.list
      .filter(({ where }) => where === 'bus')
      .map(({ error }) => error.message);
    expect(reported).toEqual([
      'bus message ignored: version 2 (cancel)',
      'bus message ignored: unknown kind "teleport" (teleport)',
      'bus message ignored: not JSON',
    ]);
  });

  test('a handler that throws is reported; the others still run; handlers can be removed', async () => {
    const seen = errors();
    const [a, b] = (await cluster(2, seen.onError)) as [RedisContext, RedisContext];
    const got: number[] = [];
    b.bus.on('taskExp', () => {
      throw new Error('handler failed');
    });
    const remove = b.bus.on('taskExp', () => got.push(1));
    await a.bus.broadcast({ k: 'taskExp', t: 'T1' });
    await until(() => got.length === 1, 'the second handler');
    expect(seen.list.some(({ error }) => error.message === 'handler failed')).toBe(true);
    remove();
    // A handler that stays sees every later message: once it has T3, the removed one would have
    // had T2 and T3 (one channel, delivered in order).
    const after: string[] = [];
    b.bus.on('taskExp', (message) => after.push(String((message as { t?: unknown }).t)));
    await a.bus.broadcast({ k: 'taskExp', t: 'T2' });
    await a.bus.broadcast({ k: 'taskExp', t: 'T3' });
    await until(() => after.includes('T3'), 'T3 delivered');
    expect(after).toEqual(['T2', 'T3']);
    expect(got).toEqual([1]);
  });

  test('subscribe and unsubscribe another channel', async () => {
    const [a, b] = (await cluster(2)) as [RedisContext, RedisContext];
    const got: BusEnvelope[] = [];
    const channel = `${b.keys.namespace}:link:n1`;
    const unsubscribe = await b.bus.subscribe(channel, (message) => got.push(message));
    const text = JSON.stringify({ v: 1, o: a.instance.tag, k: 'end', s: 'S', st: 'x.1', n: 'n1' });
    expect(await a.connection.command(['PUBLISH', channel, text])).toBe(1);
    await until(() => got.length === 1, 'the message');
    expect(got[0]).toMatchObject({ k: 'end', n: 'n1' });
    await unsubscribe();
    expect(await a.connection.command(['PUBLISH', channel, text])).toBe(0);
  });

  test('subscriptions come back after Redis restarts; published meanwhile is lost, after it arrives', async () => {
    const [a, b] = (await cluster(2)) as [RedisContext, RedisContext];
    const atB = collect(b, 'list');
    await redis().restart();
    await until(() => a.connection.available && b.connection.available, 'both reconnected');
    // The subscriber may be ready a moment after the commands connection: poll the receivers.
    await until(
      async () => (await a.bus.broadcast({ k: 'list', l: 'tools' })) >= 1 && atB.length >= 1,
      'a broadcast received after the restart',
    );
    expect(atB.at(-1)?.message).toMatchObject({ k: 'list', l: 'tools' });
  });
});
