/**
 * A short soak of a real Node server (~15 s); `pnpm stress` runs 10 minutes. Every request of a
 * client that stays is answered without a 5xx or a network error; afterwards nothing is in flight,
 * no stream is open, no session is left, the heap is within its bound and the server closes.
 */
import { expect, test } from 'vitest';
import { formatSoak, soak } from '../src/soak/soak.ts';

test('soak: mixed clients, drops and stalled readers leave nothing behind', async () => {
  const summary = await soak({
    seconds: Number(process.env.SOAK_SECONDS ?? 12),
    warmupSeconds: 2,
    clients: 12,
    stalledReaders: 3,
    seed: process.env.SOAK_SEED === undefined ? undefined : Number(process.env.SOAK_SEED),
  });
  console.log(formatSoak(summary));
  expect(summary.errors).toEqual({});
  expect(summary.after).toEqual({ inFlight: 0, openStreams: 0, sessions: 0 });
  expect(summary.heap.growth).toBeLessThan(summary.heap.bound);
  expect(summary.leftoverHandles).toEqual({});
  expect(summary.closeMs).toBeLessThan(2_000);
  // The soak did what it says: calls dropped both ways, readers stalled until overflow.
  expect(summary.drops.abort).toBeGreaterThan(0);
  expect(summary.drops.destroy).toBeGreaterThan(0);
  expect(summary.stalls).toBeGreaterThan(0);
  expect(summary.legacySessions).toBeGreaterThan(0);
}, 60_000);
