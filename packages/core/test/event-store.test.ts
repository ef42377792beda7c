import { expect, test } from 'vitest';
import { MemoryEventStore } from '../src/sessions.ts';

test('MemoryEventStore keeps the newest events per session, in order, one stream per replay', () => {
  const store = new MemoryEventStore({ maxEventsPerSession: 100 });
  const ids: string[] = [];
  for (let i = 0; i < 350; i++) ids.push(store.append('s1', i % 2 === 0 ? '1' : '2', `m${i}`));
  store.append('s2', '1', 'other session');
  expect(store.usage('s1').events).toBe(100);
  // From an evicted id of stream 1: only the retained events of stream 1, oldest first.
  const replay = store.replay('s1', ids[0] as string);
  expect(replay?.streamId).toBe('1');
  expect(replay?.events.map((e) => e.message)).toEqual(
    Array.from({ length: 50 }, (_, k) => `m${250 + 2 * k}`),
  );
  // After a retained id, only what followed it.
  expect(store.replay('s1', ids[346] as string)?.events.map((e) => e.message)).toEqual(['m348']);
  expect(store.replay('s2', '1-0')?.events.map((e) => e.message)).toEqual(['other session']);
  expect(store.replay('s1', 'garbage')).toBeUndefined();
  store.dropSession('s1');
  expect(store.usage('s1').events).toBe(0);
});
