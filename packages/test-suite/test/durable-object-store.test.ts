/**
 * The session-store, event-store and task-store contracts on the Durable Object stores in workerd (wrangler
 * dev): each case runs inside a fresh Durable Object on its real storage and alarm
 * (src/store-contract-object.ts).
 */
import {
  eventStoreContract,
  type SessionStoreTarget,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { workerdTarget } from '../src/targets/runtimes.ts';
import type { Target } from '../src/targets/types.ts';

/** What the object's target is (one session per store, reopened over the same storage). */
const shape: SessionStoreTarget<unknown> = {
  single: true,
  store: () => undefined,
  reopen: () => undefined,
  handler: () => {
    throw new Error('the cases run in the object');
  },
};

let target: Target;
beforeAll(async () => {
  target = await workerdTarget();
}, 120_000);
afterAll(() => target?.stop());

describe('DurableObjectSessionStore passes the session-store contract, in workerd', () => {
  for (const contractCase of sessionStoreContract) {
    if (contractCase.applies && !contractCase.applies(shape)) continue;
    test(contractCase.name, async () => {
      const url = new URL('/__store-contract', target.mcpUrl);
      url.searchParams.set('case', contractCase.name);
      const response = await fetch(url, { method: 'POST' });
      expect(await response.json()).toEqual({ ok: true });
    }, 30_000);
  }
});

describe('DurableObjectEventStore passes the event-store contract, in workerd', () => {
  for (const contractCase of eventStoreContract) {
    if (contractCase.applies && !contractCase.applies({ single: true, store: () => never() }))
      continue;
    test(contractCase.name, async () => {
      const url = new URL('/__store-contract', target.mcpUrl);
      url.searchParams.set('contract', 'events');
      url.searchParams.set('case', contractCase.name);
      const response = await fetch(url, { method: 'POST' });
      expect(await response.json()).toEqual({ ok: true });
    }, 30_000);
  }
});

describe('DurableObjectTaskStore passes the task-store contract, in workerd', () => {
  for (const contractCase of taskStoreContract) {
    test(contractCase.name, async () => {
      const url = new URL('/__store-contract', target.mcpUrl);
      url.searchParams.set('contract', 'tasks');
      url.searchParams.set('case', contractCase.name);
      const response = await fetch(url, { method: 'POST' });
      expect(await response.json()).toEqual({ ok: true });
    }, 30_000);
  }
});

function never(): never {
  throw new Error('the cases run in the object');
}
