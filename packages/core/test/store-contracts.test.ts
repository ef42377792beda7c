/**
 * The test kit's store contracts on the core's memory stores (the session-store contract runs on
 * in-process sessions in docs/test/stores.test.ts, next to the third-party store it documents).
 */
import { eventStoreContract, runCases, taskStoreContract } from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { MemoryEventStore } from '../src/sessions.ts';
import { MemoryTaskStore } from '../src/tasks.ts';

describe('MemoryEventStore passes the event-store contract', () => {
  runCases(test, eventStoreContract, {
    store: (maxEvents) => new MemoryEventStore({ maxEventsPerSession: maxEvents }),
  });
});

describe('MemoryTaskStore passes the task-store contract', () => {
  runCases(test, taskStoreContract, { store: () => new MemoryTaskStore() });
});
