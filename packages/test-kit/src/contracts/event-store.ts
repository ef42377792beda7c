/**
 * The contract every `EventStore` passes, on its own API (the handler's resumable streams rest on
 * these): ids read back their stream, a replay gives what followed an id on that stream only, in
 * order, sessions never see each other's events, a dropped session replays nothing, and the
 * store's bound drops the oldest first. Stores that keep `AppendInfo` (shared by instances) also
 * give the request a stream answers and mark its final message. Web APIs only (Node and workerd).
 */
import type { ContractCase } from './session-store.ts';

/** An event store as the contract sees it (the core's `EventStore`, structurally). */
export interface ContractEventStore {
  append(
    sessionId: string,
    streamId: string,
    message: string,
    info?: { requestId?: string | number; final?: boolean },
  ): string | Promise<string>;
  replay(
    sessionId: string,
    lastEventId: string,
  ): ContractReplay | undefined | Promise<ContractReplay | undefined>;
  dropSession(sessionId: string): void | Promise<void>;
}

export interface ContractReplay {
  streamId: string;
  events: Array<{ id: string; message: string }>;
  requestId?: string | number | undefined;
  finished?: boolean | undefined;
}

export interface EventStoreTarget {
  /**
   * A new store over empty storage, keeping at most `maxEvents` events per session, for the live
   * sessions `sessions` (a store that keeps events only for live sessions, as Redis's does,
   * makes them exist).
   */
  store(maxEvents: number, sessions: string[]): ContractEventStore | Promise<ContractEventStore>;
  /** It keeps `AppendInfo`: `requestId` and `finished` come back in a replay. */
  keepsInfo?: boolean;
  /** Sessions it keeps events for at once (a Durable Object's store holds one session). */
  single?: boolean;
}

function check(holds: boolean, what: string): void {
  if (!holds) throw new Error(`contract: ${what}`);
}

function messages(replay: ContractReplay | undefined): string[] {
  return replay?.events.map((event) => event.message) ?? [];
}

export const eventStoreContract: ReadonlyArray<ContractCase<EventStoreTarget>> = [
  {
    name: 'a replay gives what followed the id on its stream, in order, and nothing of another',
    async run(target) {
      const store = await target.store(100, ['s']);
      const first = await store.append('s', '1', 'a');
      await store.append('s', '2', 'other stream');
      const second = await store.append('s', '1', 'b');
      await store.append('s', '1', 'c');
      const replay = await store.replay('s', first);
      check(replay?.streamId === '1', `the id names stream 1 (got ${replay?.streamId})`);
      check(messages(replay).join() === 'b,c', `b, c follow a (got ${messages(replay)})`);
      check(replay?.events[0]?.id === second, 'the replayed events carry their ids');
      const last = replay?.events.at(-1)?.id as string;
      check(messages(await store.replay('s', last)).length === 0, 'nothing follows the last');
    },
  },
  {
    name: 'ids are unique in a session, and a malformed one replays nothing',
    async run(target) {
      const store = await target.store(100, ['s']);
      const ids = new Set<string>();
      for (const stream of ['1', '2', '1', '3', '2']) ids.add(await store.append('s', stream, 'm'));
      check(ids.size === 5, 'five events, five ids');
      check((await store.replay('s', 'not-an-id')) === undefined, 'a malformed id: undefined');
    },
  },
  {
    name: 'one session never reads another’s events; a dropped session replays nothing',
    applies: (target) => !target.single,
    async run(target) {
      const store = await target.store(100, ['mine', 'theirs']);
      const mine = await store.append('mine', '1', 'a');
      await store.append('mine', '1', 'b');
      await store.append('theirs', '1', 'secret');
      check(messages(await store.replay('theirs', mine)).join() !== 'b', 'not replayed elsewhere');
      check(messages(await store.replay('mine', mine)).join() === 'b', 'mine replays b');
      await store.dropSession('mine');
      check(messages(await store.replay('mine', mine)).length === 0, 'dropped: nothing');
      const theirs = await store.append('theirs', '1', 'after');
      check(typeof theirs === 'string', 'the other session goes on');
    },
  },
  {
    name: 'a dropped session replays nothing',
    applies: (target) => target.single === true,
    async run(target) {
      const store = await target.store(100, ['s']);
      const first = await store.append('s', '1', 'a');
      await store.append('s', '1', 'b');
      await store.dropSession('s');
      check(messages(await store.replay('s', first)).length === 0, 'dropped: nothing');
    },
  },
  {
    name: 'past its bound the oldest events go first',
    async run(target) {
      const store = await target.store(3, ['s']);
      const ids: string[] = [];
      for (const message of ['a', 'b', 'c', 'd', 'e'])
        ids.push(await store.append('s', '1', message));
      const replay = await store.replay('s', ids[1] as string);
      check(
        messages(replay).join() === 'c,d,e',
        `the newest three remain (got ${messages(replay)})`,
      );
    },
  },
  {
    name: 'the request a stream answers and its final message come back in a replay',
    applies: (target) => target.keepsInfo === true,
    async run(target) {
      const store = await target.store(100, ['s']);
      const first = await store.append('s', '7', 'progress', { requestId: 'r1' });
      const open = await store.replay('s', first);
      check(open?.requestId === 'r1', `requestId while open (got ${open?.requestId})`);
      check(open?.finished !== true, 'not finished yet');
      await store.append('s', '7', 'answer', { final: true });
      const done = await store.replay('s', first);
      check(done?.finished === true, 'finished once the final message is stored');
      check(messages(done).join() === 'answer', 'the replay ends with the final message');
    },
  },
];
