/**
 * The fuzz properties, shared by `pnpm test` (a few thousand runs, time-boxed) and `pnpm stress`
 * (100,000): each drives fast-check scenarios through a handler and, after its runs, closes the
 * handler and checks that it lets go of everything.
 */
import fc from 'fast-check';
import { activeResources, grownResources, TimerTracker, waitUntil } from '../leaks.ts';
import { scenario } from './arbitraries.ts';
import { Finding } from './check.ts';
import { CLOSE_BOUND_MS, emptyTally, Fuzzer, type FuzzTally, type Profile } from './fuzzer.ts';
import type { Era, Scenario } from './model.ts';

export interface Budget {
  numRuns: number;
  /** Runs stop (successfully) after this long, whatever `numRuns` says. */
  timeMs: number;
  seed?: number;
}

export interface PropertyResult {
  name: string;
  runs: number;
  ms: number;
  seed: number;
  interrupted: boolean;
  tally: FuzzTally;
  /** `close()` of the handler after the runs (ms). */
  closeMs?: number;
}

async function check<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  budget: Budget,
): Promise<{ runs: number; ms: number; seed: number; interrupted: boolean }> {
  const started = performance.now();
  // The time limit stops fast-check from starting runs, not the run in progress: wait for it, so
  // the checks after the property (close, counters) never race a scenario.
  let current: Promise<void> | undefined;
  const tracked = (value: T) => {
    current = predicate(value);
    return current;
  };
  const details = await fc.check(fc.asyncProperty(arbitrary, tracked), {
    numRuns: budget.numRuns,
    seed: budget.seed,
    // Shrinking replays scenarios through a handler that already served the failing one; keep
    // it short, the counterexample is printed with its seed either way.
    endOnFailure: false,
    plugins: [fc.interruptAfterTimeLimit(budget.timeMs)],
  });
  await current?.catch(() => {});
  if (details.failed)
    throw new Error(
      `${name}: ${describe(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? 'failed'}`,
      {
        cause: details.errorInstance,
      },
    );
  return {
    runs: details.numRuns,
    ms: performance.now() - started,
    seed: details.seed,
    interrupted: details.interrupted,
  };
}

/** After the runs: close() resolves promptly and nothing is left in flight, open or alive. */
async function closeAndCheck(fuzzer: Fuzzer): Promise<number> {
  const closeMs = await fuzzer.close();
  if (closeMs > CLOSE_BOUND_MS)
    throw new Finding('slow-close', `close() took ${Math.round(closeMs)} ms`);
  await waitUntil(
    () => {
      const stats = fuzzer.handler.stats();
      return stats.inFlight === 0 && stats.openStreams === 0 && stats.sessions === 0;
    },
    2_000,
    () => `after close: ${JSON.stringify(fuzzer.handler.stats())}`,
  );
  return closeMs;
}

/** Scenarios of one era (or both) against one handler profile. */
export async function eraProperty(
  profile: Profile,
  era: Era | undefined,
  budget: Budget,
): Promise<PropertyResult> {
  const name = `fuzz ${era ?? 'mixed'} (${profile})`;
  const fuzzer = new Fuzzer(profile);
  const run = await check(name, scenario(era), (s) => fuzzer.run(s), budget);
  const closeMs = await closeAndCheck(fuzzer);
  return { name, ...run, tally: fuzzer.tally, closeMs };
}

/**
 * Shutdown at a random point: a fresh handler per run, closed while the scenario runs. Answers
 * after it may be 503; close() resolves promptly and the handler ends with nothing left.
 */
export async function shutdownProperty(budget: Budget): Promise<PropertyResult> {
  const name = 'fuzz shutdown at a random point';
  const tally = emptyTally();
  const arbitrary = fc.record({
    scenario: scenario(),
    closeAfterMs: fc.nat(25),
    profile: fc.constantFrom<Profile>('default', 'tight'),
  });
  const run = await check(
    name,
    arbitrary,
    async ({ scenario: s, closeAfterMs, profile }) => {
      const fuzzer = new Fuzzer(profile);
      try {
        await fuzzer.run(s, { closeAfterMs });
        await closeAndCheck(fuzzer);
        const after = await fuzzer.handler.fetch(new Request('http://127.0.0.1:8787/mcp'));
        if (after.status !== 503) throw new Finding('open-after-close', `HTTP ${after.status}`);
        await after.body?.cancel();
      } finally {
        await fuzzer.close();
        add(tally, fuzzer.tally);
      }
    },
    budget,
  );
  return { name, ...run, tally };
}

/**
 * Timers and handles: every timer created while the scenarios ran (the core's keep-alives,
 * grace and early-stream timers, the session sweeper, whether refed or not) is gone once the
 * handler is closed, and the process holds no more refed handles than before.
 */
export async function resourcesProperty(budget: Budget): Promise<PropertyResult> {
  const name = 'fuzz timers and handles (tight)';
  const before = activeResources();
  const tracker = new TimerTracker();
  const fuzzer = new Fuzzer('tight');
  tracker.start();
  let closeMs: number;
  let run: Awaited<ReturnType<typeof check<Scenario>>>;
  try {
    run = await check(name, scenario(), (s) => fuzzer.run(s), budget);
    closeMs = await closeAndCheck(fuzzer);
    // One-shot timers whose callbacks are due fire within a turn or two; destroy hooks are
    // emitted from an immediate after that.
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    tracker.stop();
  }
  const live = tracker.live();
  if (live.length > 0)
    throw new Finding(
      'timer-leak',
      `${live.length} of ${tracker.created} timers still pending after close, first created at:\n${live[0]?.stack}`,
    );
  const grown = grownResources(before, activeResources());
  if (Object.keys(grown).length > 0)
    throw new Finding('handle-leak', `active resources grew: ${JSON.stringify(grown)}`);
  return { name, ...run, tally: fuzzer.tally, closeMs };
}

function add(into: FuzzTally, from: FuzzTally): void {
  for (const key of Object.keys(from) as Array<keyof FuzzTally>) {
    if (key === 'byStatus') {
      for (const [status, count] of Object.entries(from.byStatus))
        into.byStatus[status] = (into.byStatus[status] ?? 0) + count;
    } else into[key] += from[key];
  }
}

export function mergeTallies(tallies: FuzzTally[]): FuzzTally {
  const total = emptyTally();
  for (const tally of tallies) add(total, tally);
  return total;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
