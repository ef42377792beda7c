/**
 * The session-store, event-store and task-store contracts on the Durable Object stores in workerd
 * (wrangler dev): each case runs inside a fresh Durable Object on its real storage and alarm
 * (src/store-contract-object.ts).
 */
import {
  type ContractCase,
  eventStoreContract,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { Target } from '../src/targets/types.ts';

let target: Target;
beforeAll(async () => {
  target = await workerdTarget();
}, 120_000);
afterAll(() => target?.stop());

function never(): never {
  throw new Error('the cases run in the object');
}

/** A test per case that applies to `shape` (what the object's target is), run in the object. */
function inObject<T>(contract: string, cases: ReadonlyArray<ContractCase<T>>, shape: T): void {
  for (const contractCase of cases) {
    if (contractCase.applies && !contractCase.applies(shape)) continue;
    test(contractCase.name, async () => {
      const url = new URL('/__store-contract', target.mcpUrl);
      url.searchParams.set('contract', contract);
      url.searchParams.set('case', contractCase.name);
      const response = await fetch(url, { method: 'POST' });
      expect(await response.json()).toEqual({ ok: true });
    }, 30_000);
  }
}

describe('DurableObjectSessionStore passes the session-store contract, in workerd', () => {
  // One session per store, reopened over the same storage.
  inObject('sessions', sessionStoreContract, {
    single: true,
    store: never,
    reopen: never,
    handler: never,
  });
});

describe('DurableObjectEventStore passes the event-store contract, in workerd', () => {
  inObject('events', eventStoreContract, { single: true, store: never });
});

describe('DurableObjectTaskStore passes the task-store contract, in workerd', () => {
  inObject('tasks', taskStoreContract, { store: never });
});
