/**
 * Property-based fuzzing of the core handler, in-process, both protocol eras: a few thousand
 * scenarios in all, each property time-boxed. The handlers mostly wait on their clients' timers,
 * so the three independent properties run concurrently (each on its own handler); the one that
 * tracks every timer of the process runs alone. `pnpm stress` runs the same properties 100,000
 * times. FUZZ_SEED replays a seed printed by a failure.
 */
import { describe, expect, test } from 'vitest';
import {
  type Budget,
  eraProperty,
  type PropertyResult,
  resourcesProperty,
  shutdownProperty,
} from '../src/fuzz/properties.ts';

const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

function budget(numRuns: number, timeMs: number): Budget {
  return { numRuns, timeMs, seed };
}

function report(result: PropertyResult): void {
  const rate = Math.round((result.runs / result.ms) * 1000);
  const t = result.tally;
  console.log(
    `${result.name}: ${result.runs} runs in ${Math.round(result.ms)} ms (${rate}/s), seed ${result.seed}; ` +
      `${t.exchanges} exchanges, ${t.sseAnswers} streams (${t.sseEvents} events), ${t.clientAborts} aborts, ` +
      `${t.answeredQuestions} questions answered, ${t.inputRetries} input retries, ${t.resumes} resumes; ` +
      `statuses ${JSON.stringify(t.byStatus)}`,
  );
}

// The run floors below check that the fuzzer did real work within its time budget; how many runs
// fit depends on the machine's load (a busy 2-core CI machine managed ~200 legacy runs where an
// idle one does ~800), so they are set well under what a loaded machine does.
describe.concurrent('fuzz: every answer well-formed, never a 5xx, nothing left behind', () => {
  test('2026-07-28 requests (default limits)', async () => {
    const result = await eraProperty('default', 'modern', budget(1500, 11_000));
    report(result);
    expect(result.runs).toBeGreaterThan(50);
  });

  test('legacy requests on sessions (default limits)', async () => {
    const result = await eraProperty('default', 'legacy', budget(1500, 11_000));
    report(result);
    expect(result.runs).toBeGreaterThan(50);
  });

  test('shutdown at a random point (both eras, both profiles)', async () => {
    const result = await shutdownProperty(budget(1000, 11_000));
    report(result);
    expect(result.runs).toBeGreaterThan(30);
  });
});

describe('fuzz: timers and handles', () => {
  test('both eras against tight limits: no timer and no handle left after close', async () => {
    const result = await resourcesProperty(budget(1000, 8_000));
    report(result);
    expect(result.runs).toBeGreaterThan(50);
  });
});
