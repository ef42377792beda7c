import { describe, expect, test } from 'vitest';
import { RedisReplyError } from '../src/connection.ts';
import { context, namespace, until, useRedis } from './helpers.ts';

const redis = useRedis();

describe('the instance: liveness key and heartbeat', () => {
  test('start sets the liveness key for 3 heartbeats; beats renew it; stop deletes it', async () => {
    const ns = namespace();
    const { connection, instance, keys } = await context(redis().url, {
      namespace: ns,
      heartbeatMs: 100,
    });
    const key = keys.instance(instance.tag);
    expect(JSON.parse((await connection.command(['GET', key])) as string)).toMatchObject({
      runtime: 'node',
      startedAt: instance.startedAt,
    });
    const ttl = (await connection.command(['PTTL', key])) as number;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    // Eight beats (more than two TTLs of 300 ms) later the key is still there: the heartbeat
    // renewed it.
    const beats = instance.beats;
    await until(() => instance.beats >= beats + 8, 'eight heartbeats', 10_000);
    expect(await instance.alive(instance.tag)).toBe(true);
    await instance.stop();
    expect(await instance.alive(instance.tag)).toBe(false);
    expect(await connection.command(['EXISTS', key])).toBe(0);
  });

  test('what other parts add to the beat goes in the same pipeline: one round trip per beat', async () => {
    const { connection, instance } = await context(redis().url, {
      namespace: namespace(),
      heartbeatMs: 60_000,
    });
    const seen: unknown[] = [];
    instance.onBeat(() => ({
      ops: [
        ['ECHO', 'a'],
        ['INCR', 'not-a-number-key'],
      ],
      done: (replies) => seen.push(replies),
    }));
    await connection.command(['SET', 'not-a-number-key', 'x']);
    const remove = instance.onBeat(() => ({ ops: [['ECHO', 'b']], done: (r) => seen.push(r) }));
    instance.onBeat(() => undefined);
    const before = connection.stats();
    const beats = instance.beats;
    await instance.beat();
    const after = connection.stats();
    expect(after.roundTrips - before.roundTrips).toBe(1);
    // Counted, so per-request figures can leave heartbeats out.
    expect(instance.beats - beats).toBe(1);
    // The liveness SET, the bus's inbox LPOP, and the three above.
    expect(after.commands - before.commands).toBe(5);
    expect(seen[0]).toHaveLength(2);
    expect((seen[0] as unknown[])[0]).toBe('a');
    expect((seen[0] as unknown[])[1]).toBeInstanceOf(RedisReplyError);
    expect(seen[1]).toEqual(['b']);
    remove();
    await instance.beat();
    expect(seen).toHaveLength(3);
  });

  test('another instance is alive while its key lives; the key lapses without beats', async () => {
    const a = await context(redis().url, { namespace: namespace(), heartbeatMs: 100 });
    const ns = a.keys.namespace;
    const b = await context(redis().url, { namespace: ns, heartbeatMs: 100 });
    expect(await a.instance.alive(b.instance.tag)).toBe(true);
    expect(await a.instance.alive('zzzzzzzzzz')).toBe(false);
    // b stops beating without deleting its key (what a SIGKILL does): gone within 3 beats.
    await b.connection.close();
    await until(async () => !(await a.instance.alive(b.instance.tag)), 'key lapsed', 1000);
  });

  test('Redis restarted empty: the liveness key is set again as soon as it is back, not a heartbeat later', async () => {
    const { connection, instance } = await context(redis().url, {
      namespace: namespace(),
      heartbeatMs: 60_000,
    });
    const beats = { count: 0 };
    instance.onBeat(() => {
      beats.count++;
      return undefined;
    });
    await redis().restart(); // no AOF: every key is gone
    await until(() => connection.available, 'reconnected');
    await until(async () => await instance.alive(instance.tag), 'liveness key back', 2000);
    expect(beats.count).toBe(1);
  });
});
