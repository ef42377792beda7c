/**
 * The contract every `TaskStore` passes, on its own API (what the task engine rests on): a record
 * comes back as it was stored, a patch is applied and answered, a listing gives one binding's
 * records page by page and no one else's, unfinished ones are counted, `maxActive` is held (with
 * `TaskLimitError`), a write with a stale fencing token is refused (two runners never both
 * complete a task), a run's books survive the store, and an expired record is gone. Web APIs only (Node and workerd).
 */
import { until } from '../wait.ts';
import type { ContractCase } from './session-store.ts';

/** A task record as the contract writes it (the core's `TaskRecord`, structurally). */
export interface ContractTask {
  readonly id: string;
  readonly binding: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string | undefined;
  readonly createdAt: number;
  updatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly expiresAt: number;
  readonly tool: string;
  issuedKeys: string[];
  result?: Record<string, unknown> | undefined;
  runner: string;
  fence?: number | undefined;
  attempts?: number | undefined;
  maxAttempts?: number | undefined;
  call?:
    | {
        arguments: Record<string, unknown>;
        protocolVersion: string;
        clientCapabilities: Record<string, unknown>;
        url: string;
      }
    | undefined;
  answers?: Record<string, Record<string, unknown>> | undefined;
}

/** A task store as the contract sees it (the core's `TaskStore`, structurally). */
export interface ContractTaskStore {
  readonly runner?: string;
  bind(host: { expired(id: string): void; changed?(id: string): void }): void;
  newId?(binding: string): string;
  create(record: ContractTask, maxActive?: number): void | Promise<void>;
  get(id: string): unknown;
  update(id: string, patch: Partial<ContractTask>, fence?: number): unknown;
  list(binding: string, cursor: string | undefined, limit: number): unknown;
  countActive(binding: string): number | Promise<number>;
}

export interface TaskStoreTarget {
  /** A new store over empty storage (bound by the case). */
  store(): ContractTaskStore | Promise<ContractTaskStore>;
}

interface Listed {
  records: ContractTask[];
  nextCursor?: string | undefined;
}

function check(holds: boolean, what: string): void {
  if (!holds) throw new Error(`contract: ${what}`);
}

let made = 0;

/** A running task of `binding` with the store's id and runner, expiring in `ttlMs`. */
function task(store: ContractTaskStore, binding: string, ttlMs = 60_000): ContractTask {
  const now = Date.now();
  return {
    id: store.newId?.(binding) ?? `contract-${now}-${++made}`,
    binding,
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs,
    pollIntervalMs: 1000,
    expiresAt: now + ttlMs,
    tool: 'contract',
    issuedKeys: [],
    runner: store.runner ?? 'contract-runner',
    fence: 1,
    attempts: 1,
    maxAttempts: 3,
  };
}

/** A fresh store, bound, and a binding no other case uses (stores may be shared storage). */
async function fresh(target: TaskStoreTarget) {
  const store = await target.store();
  store.bind({ expired() {} });
  return { store, binding: `p:contract-${Date.now()}-${++made}` };
}

export const taskStoreContract: ReadonlyArray<ContractCase<TaskStoreTarget>> = [
  {
    name: 'a record comes back as it was stored; an unknown id is undefined',
    async run(target) {
      const { store, binding } = await fresh(target);
      const record = task(store, binding);
      await store.create(record);
      const got = (await store.get(record.id)) as ContractTask | undefined;
      check(got?.id === record.id && got.binding === binding, 'the record by its id');
      check(got?.status === 'working' && got.tool === 'contract', 'with its fields');
      check((await store.get(`${record.id}x`)) === undefined, 'an unknown id: undefined');
    },
  },
  {
    name: 'an update is applied and answered; an unknown id answers undefined',
    async run(target) {
      const { store, binding } = await fresh(target);
      const record = task(store, binding);
      await store.create(record);
      const result = { content: [{ type: 'text', text: 'done' }] };
      const updated = (await store.update(record.id, {
        status: 'completed',
        result,
        updatedAt: Date.now(),
      })) as ContractTask | undefined;
      check(updated?.status === 'completed', 'the patched record is answered');
      const got = (await store.get(record.id)) as ContractTask | undefined;
      check(got?.status === 'completed', 'and stored');
      check(JSON.stringify(got?.result) === JSON.stringify(result), 'with its result');
      check((await store.update(`${record.id}x`, { status: 'failed' })) === undefined, 'unknown');
    },
  },
  {
    name: 'a listing gives one binding’s records, page by page, and nobody else’s',
    async run(target) {
      const { store, binding } = await fresh(target);
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const record = task(store, binding);
        ids.add(record.id);
        await store.create(record);
      }
      const other = task(store, `${binding}-other`);
      await store.create(other);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const listed = (await store.list(binding, cursor, 2)) as Listed;
        check(listed.records.length <= 2, 'a page holds at most the limit');
        seen.push(...listed.records.map((record) => record.id));
        cursor = listed.nextCursor;
        if (cursor === undefined) break;
      }
      check(seen.length === 5 && new Set(seen).size === 5, `five records, once each (${seen})`);
      check(
        seen.every((id) => ids.has(id)),
        'only the binding’s own',
      );
    },
  },
  {
    name: 'unfinished records are counted per binding',
    async run(target) {
      const { store, binding } = await fresh(target);
      const running = task(store, binding);
      const done = task(store, binding);
      await store.create(running);
      await store.create(done);
      await store.update(done.id, { status: 'completed', updatedAt: Date.now() });
      await store.create(task(store, `${binding}-other`));
      const count = await store.countActive(binding);
      check(count === 1, `one unfinished (got ${count})`);
    },
  },
  {
    name: 'maxActive is held: past it, create refuses with TaskLimitError',
    async run(target) {
      const { store, binding } = await fresh(target);
      await store.create(task(store, binding), 2);
      await store.create(task(store, binding), 2);
      let refused: unknown;
      try {
        await store.create(task(store, binding), 2);
      } catch (error) {
        refused = error;
      }
      check((refused as Error | undefined)?.name === 'TaskLimitError', `refused (${refused})`);
      check((await store.countActive(binding)) === 2, 'two unfinished');
    },
  },
  {
    name: 'a write with a stale fence is refused; a claim moves the fence; client writes need none',
    async run(target) {
      const { store, binding } = await fresh(target);
      const record = task(store, binding);
      await store.create(record);
      const read = async () => (await store.get(record.id)) as ContractTask;
      await store.update(record.id, { statusMessage: 'first run' }, 1);
      check((await read()).statusMessage === 'first run', "the holder's write is applied");
      // Another runner claims it: with the fence it read, moving the fence on.
      const claim = { runner: 'contract-other', fence: 2, attempts: 2 };
      const claimed = (await store.update(record.id, claim, 1)) as ContractTask | undefined;
      check(claimed?.runner === 'contract-other' && claimed.fence === 2, 'the claim is applied');
      // A second claim with the same (now stale) fence loses: one runner wins.
      const lost = (await store.update(record.id, { runner: 'contract-third', fence: 2 }, 1)) as
        | ContractTask
        | undefined;
      check(lost?.runner === 'contract-other', `a second claim is refused (${lost?.runner})`);
      // The first runner wakes up and writes its end: refused, and answered the current record.
      const stale = (await store.update(
        record.id,
        { status: 'completed', result: { content: [] } },
        1,
      )) as ContractTask | undefined;
      check(stale?.status === 'working' && stale.fence === 2, 'the stale end is refused');
      check((await read()).status === 'working', 'and not stored');
      await store.update(record.id, { statusMessage: 'seen' });
      check((await read()).statusMessage === 'seen', 'an unfenced (client) write is applied');
      const result = { content: [{ type: 'text', text: 'second run' }] };
      await store.update(record.id, { status: 'completed', result }, 2);
      const done = await read();
      check(done.status === 'completed' && done.attempts === 2, "the holder's end is applied");
      check(JSON.stringify(done.result) === JSON.stringify(result), 'with its result');
    },
  },
  {
    name: "a run's books (call, attempts, answers, a queued runner) come back as written",
    async run(target) {
      const { store, binding } = await fresh(target);
      const record: ContractTask = {
        ...task(store, binding),
        runner: '',
        attempts: 0,
        call: {
          arguments: { ms: 5, list: [] },
          protocolVersion: '2026-07-28',
          clientCapabilities: {},
          url: 'http://x/',
        },
      };
      await store.create(record);
      const answers = { ending: { action: 'accept', content: { ending: 'ok' } } };
      await store.update(record.id, { answers });
      const got = (await store.get(record.id)) as ContractTask;
      check(got.runner === '' && got.attempts === 0 && got.fence === 1, 'queued, never run');
      check(
        JSON.stringify(got.call) === JSON.stringify(record.call),
        `the call (${JSON.stringify(got.call)})`,
      );
      check(JSON.stringify(got.answers) === JSON.stringify(answers), 'the answers');
    },
  },
  {
    name: 'an expired record is gone',
    async run(target) {
      const { store, binding } = await fresh(target);
      const record = task(store, binding, 100);
      await store.create(record);
      await until(async () => (await store.get(record.id)) === undefined, 'the record to expire');
    },
  },
];
