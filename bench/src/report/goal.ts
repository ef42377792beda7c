/**
 * How a section makes a verdict: a goal's rounds against its threshold, judged on the worst round
 * (the lowest value for `>=`, the highest for `<=`), and the ratio goals the registry declares.
 */
import { median, pairedRatios, pairedSamples, type Spread, spread, worst } from '../lib/stats.ts';
import type { RatioGoal } from '../target-shapes.ts';
import { fixed } from './format.ts';
import type { Goal } from './types.ts';

const meets = (value: number, comparison: '>=' | '<=', threshold: number) =>
  comparison === '>=' ? value >= threshold : value <= threshold;

export function goal(
  label: string,
  unit: Goal['unit'],
  comparison: '>=' | '<=',
  threshold: number,
  values: readonly number[] | Spread | null,
  detail: string,
  failure?: string,
): Goal {
  const value =
    values === null ? null : Array.isArray(values) ? spread(values) : (values as Spread);
  const bad = value === null ? null : worst(value, comparison);
  return {
    label,
    unit,
    comparison,
    threshold,
    value,
    worst: bad,
    met: failure ? false : bad === null ? null : meets(bad, comparison, threshold),
    medianMet: value === null ? null : meets(value.median, comparison, threshold),
    detail: failure ? `${failure}; ${detail}` : detail,
  };
}

/** Failed rounds of the rows, said as a goal's failure; undefined when none failed. */
export function failed(...rows: ({ errors: string[] } | undefined)[]): string | undefined {
  const count = rows.reduce((sum, row) => sum + (row?.errors.length ?? 0), 0);
  return count > 0 ? `${count} round(s) failed` : undefined;
}

/** `n <what> failed, m round(s) failed` when any did (a probe's failure); undefined otherwise. */
export const failedProbes = (row: { errors: string[] }, count: number, what: string) =>
  count > 0 || row.errors.length > 0
    ? `${count} ${what} failed, ${row.errors.length} round(s) failed`
    : undefined;

/**
 * The ratio goals of one registry target (`this / against`, against its baseline by default),
 * each ratio taken within a round from `byRound` of both rows; none when the target was not run.
 */
export function ratioGoals<
  Row extends {
    id: string;
    errors: string[];
    samples: readonly { round: number; seq?: number; partner?: number }[];
  },
>(
  rows: readonly Row[],
  target: { id: string; baseline?: string; goals?: RatioGoal[] },
  byRound: (row: Row) => Map<number, number>,
  unit: string,
): Goal[] {
  const row = rows.find((r) => r.id === target.id);
  if (!row) return [];
  return (target.goals ?? []).map((spec) => {
    const againstId = spec.against ?? target.baseline;
    const against = rows.find((r) => r.id === againstId);
    const mine = byRound(row);
    // Against the partner samples taken next to this target's, where it has them.
    const theirs = against
      ? byRound({ ...against, samples: pairedSamples(row.samples, against.samples) })
      : new Map<number, number>();
    const ratios = pairedRatios(mine, theirs);
    const detail = against
      ? `${fixed(median([...mine.values()]))} vs ${fixed(median([...theirs.values()]))} ${unit} (${againstId}), medians of ${ratios.length} round${ratios.length === 1 ? '' : 's'}`
      : `${againstId} not measured`;
    return goal(
      spec.label,
      '×',
      spec.comparison,
      spec.threshold,
      ratios,
      detail,
      failed(row, against),
    );
  });
}
