/**
 * What the measures share: interleaved rounds over the targets that can run here, a log line per
 * sample, the rows' failed rounds, and the figures summarised over the rounds (median, min–max).
 */
import { messageOf, runRounds } from '../lib/rounds.ts';
import { pairedRatios, roundMedians, type Spread, spread } from '../lib/stats.ts';
import { loadAverage } from '../lib/system.ts';

/** Where a sample sits: its round, its place in the round, the 1-minute load when it started. */
export interface Stamp {
  round: number;
  position: number;
  load1: number;
}

export const stamp = (round: number, position: number): Stamp => ({
  round,
  position,
  load1: loadAverage()[0],
});

/** A target's samples, its failed rounds (`round 2: …`) and why it was skipped, if it was. */
export interface Measured<S> {
  samples: S[];
  errors: string[];
  skipped?: string;
}

interface Runnable {
  id: string;
  unavailable?: () => string | undefined;
}

/**
 * Runs `once` for every target in interleaved rounds (src/lib/rounds.ts), a target that cannot
 * run here skipped with its reason; logs `round r/R  <name> <describe(sample)>` per sample
 * (or the error of a failed one).
 */
export async function measureRounds<T extends Runnable, S>(
  targets: readonly T[],
  rounds: number,
  log: (line: string) => void,
  name: (target: T) => string,
  once: (target: T, round: number, position: number) => Promise<S>,
  describe: (sample: S) => string,
): Promise<Map<T, Measured<S>>> {
  const skipped = new Map<T, string>();
  for (const target of targets) {
    const reason = target.unavailable?.();
    if (reason) {
      skipped.set(target, reason);
      log(`${target.id}: skipped, ${reason}`);
    }
  }
  const runnable = targets.filter((target) => !skipped.has(target));
  const results = await runRounds(runnable, rounds, async (target, round, position) => {
    const head = `round ${round + 1}/${rounds}  ${name(target)}`;
    try {
      const sample = await once(target, round, position);
      log(`${head} ${describe(sample)}`);
      return sample;
    } catch (error) {
      log(`${head} ${messageOf(error)}`);
      throw error;
    }
  });
  return new Map(
    targets.map((target) => {
      const runs = results.get(target) ?? [];
      const reason = skipped.get(target);
      const measured: Measured<S> = {
        samples: runs.flatMap((run) => (run.result === undefined ? [] : [run.result])),
        errors: runs.flatMap((run) => (run.error ? [`round ${run.round + 1}: ${run.error}`] : [])),
        ...(reason ? { skipped: reason } : {}),
      };
      return [target, measured];
    }),
  );
}

/** The spread over the samples of each named figure. */
export function spreadsOf<S, K extends keyof S>(
  samples: readonly S[],
  keys: readonly K[],
): Record<K, Spread | null> {
  const out = {} as Record<K, Spread | null>;
  for (const key of keys) out[key] = spread(samples.map((s) => s[key] as number | null));
  return out;
}

export const sum = <S>(samples: readonly S[], pick: (sample: S) => number) =>
  samples.reduce((total, sample) => total + pick(sample), 0);

/** Each row's ratio to its baseline's row, a figure of the same round over the other's. */
export function ratiosToBaselines<
  R extends {
    id: string;
    baseline: string | null;
    samples: { round: number }[];
    ratio: Spread | null;
  },
>(rows: R[], pick: (sample: R['samples'][number]) => number): R[] {
  for (const row of rows) {
    const base = rows.find((r) => r.id === row.baseline);
    if (base)
      row.ratio = spread(
        pairedRatios(roundMedians(row.samples, pick), roundMedians(base.samples, pick)),
      );
  }
  return rows;
}
