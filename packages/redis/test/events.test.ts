/**
 * `RedisEventStore`: events in one Redis stream per session, bounded by count and
 * by UTF-8 bytes, replayed per stream up to the final message, with the request a stream answers
 * kept until then; a second final (an orphan's error written twice) is not stored; nothing is
 * kept for a session that ended; any instance replays what another wrote.
 */
import { describe, expect, test } from 'vitest';
import type { RedisContext } from '../src/backend.ts';
import { RedisEventStore, SessionGoneError } from '../src/event-store.ts';
import { context, namespace, useRedis } from './helpers.ts';

const redis = useRedis();

async function setup(bounds = { maxEventsPerSession: 1000, maxEventBytesPerSession: 1 << 20 }) {
  const made = await context(redis().url, { namespace: namespace() });
  const store = new RedisEventStore(made.connection, made.keys, bounds);
  return { made, store, session: await session(made) };
}

/** A session record as the manager would have made it (the store refuses ended sessions). */
async function session(made: RedisContext, id: string = crypto.randomUUID()): Promise<string> {
  await made.connection.command(['HSET', made.keys.session(id), 'v', 1, 'pv', '2025-11-25']);
  await made.connection.command(['PEXPIRE', made.keys.session(id), 60_000]);
  return id;
}

describe('RedisEventStore', () => {
  test('ids are <stream>-<seq>, one sequence per session, increasing within each stream', async () => {
    const { store, session } = await setup();
    const ids = [
      await store.append(session, 'k.1', 'a', { requestId: 1 }),
      await store.append(session, '0', 'b'),
      await store.append(session, 'k.1', 'c'),
    ];
    expect(ids).toEqual(['k.1-1', '0-2', 'k.1-3']);
    const replay = await store.replay(session, 'k.1-0');
    expect(replay).toEqual({
      streamId: 'k.1',
      events: [
        { id: 'k.1-1', message: 'a' },
        { id: 'k.1-3', message: 'c' },
      ],
      finished: false,
      requestId: 1,
    });
    expect(await store.replay(session, 'not an id')).toBeUndefined();
  });

  test('a replay stops at, and includes, the final message; the request is forgotten then', async () => {
    const { store, session } = await setup();
    await store.append(session, 'k.2', 'p1', { requestId: 'call-1' });
    await store.append(session, 'k.2', 'p2');
    await store.append(session, 'k.2', 'answer', { final: true });
    await store.append(session, 'k.2', 'after');
    const replay = await store.replay(session, 'k.2-1');
    expect(replay?.events.map((e) => e.message)).toEqual(['p2', 'answer']);
    expect(replay?.finished).toBe(true);
    expect(replay?.requestId).toBeUndefined();
  });

  test('bounded by count: the oldest go (a tenth at once), the newest stay', async () => {
    const { store, session } = await setup({
      maxEventsPerSession: 20,
      maxEventBytesPerSession: 1 << 20,
    });
    for (let i = 1; i <= 55; i++) await store.append(session, 's.1', `m${i}`);
    const { events } = await store.usage(session);
    expect(events).toBeLessThanOrEqual(20);
    expect(events).toBeGreaterThanOrEqual(18);
    const replay = await store.replay(session, 's.1-0');
    expect(replay?.events.at(-1)).toEqual({ id: 's.1-55', message: 'm55' });
    expect(replay?.events).toHaveLength(events);
  });

  test('bounded by UTF-8 bytes: the oldest go, the newest always stays', async () => {
    const { store, session } = await setup({
      maxEventsPerSession: 1000,
      maxEventBytesPerSession: 100,
    });
    // 21 characters, 30 UTF-8 bytes.
    const wide = 'é€'.repeat(3) + 'a'.repeat(15);
    for (let i = 0; i < 10; i++) await store.append(session, 's.1', wide);
    expect(await store.usage(session)).toEqual({ events: 3, bytes: 90 });
    await store.append(session, 's.1', 'x'.repeat(500));
    expect(await store.usage(session)).toEqual({ events: 1, bytes: 500 });
  });

  test('a second final of a stream is not stored (an orphan ended by two instances at once)', async () => {
    const { store, session } = await setup();
    await store.append(session, 'k.3', 'p1', { requestId: 7 });
    const lost = '{"jsonrpc":"2.0","id":7,"error":{"code":-32603}}';
    const [one, two] = await Promise.all([
      store.append(session, 'k.3', lost, { final: true }),
      store.append(session, 'k.3', lost, { final: true }),
    ]);
    expect(one).toBe(two);
    const replay = await store.replay(session, 'k.3-0');
    expect(replay?.events.map((e) => e.message)).toEqual(['p1', lost]);
    // A stream whose first event is its final (no request stored) is stored as usual.
    expect(await store.append(session, 'k.4', 'answer', { final: true })).toBe('k.4-3');
  });

  test('nothing is stored for a session that ended; its events go with it', async () => {
    const { made, store, session } = await setup();
    await store.append(session, 'k.1', 'a');
    await store.dropSession(session);
    await made.connection.command(['DEL', made.keys.session(session)]);
    await expect(store.append(session, 'k.1', 'b')).rejects.toBeInstanceOf(SessionGoneError);
    expect((await store.replay(session, 'k.1-0'))?.events).toEqual([]);
    expect(await made.connection.command(['EXISTS', made.keys.events(session)])).toBe(0);
  });

  test('another instance replays what one wrote, after the writer quit', async () => {
    const ns = namespace();
    const writer = await context(redis().url, { namespace: ns });
    const id = await session(writer);
    const bounds = { maxEventsPerSession: 100, maxEventBytesPerSession: 1 << 20 };
    const one = new RedisEventStore(writer.connection, writer.keys, bounds);
    await one.append(id, 'w.1', 'first', { requestId: 'r' });
    await one.append(id, 'w.1', 'second');
    await writer.connection.close();
    const reader = await context(redis().url, { namespace: ns });
    const two = new RedisEventStore(reader.connection, reader.keys, bounds);
    const replay = await two.replay(id, 'w.1-1');
    expect(replay?.events).toEqual([{ id: 'w.1-2', message: 'second' }]);
    expect(replay?.requestId).toBe('r');
  });
});
