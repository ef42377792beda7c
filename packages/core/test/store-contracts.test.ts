/**
 * The test kit's store contracts on the core's memory stores (the session-store contract runs on
 * in-process sessions in docs/test/stores.test.ts, next to the third-party store it documents).
 */
import { eventStoreContract, runCases } from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { MemoryEventStore } from '../src/sessions.ts';

describe('MemoryEventStore passes the event-store contract', () => {
  runCases(test, eventStoreContract, {
    store: (maxEvents) => new MemoryEventStore({ maxEventsPerSession: maxEvents }),
  });
});
