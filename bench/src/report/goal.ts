/** One goal's verdict, and how a measure makes one (its rounds' values against a threshold). */
import { type Spread, spread, worst } from '../lib/stats.ts';

export interface Goal {
  label: string;
  unit: '×' | 'B' | 'ms' | 'per call' | 'per 1,000 calls';
  comparison: '>=' | '<=';
  threshold: number;
  /** The goal's value per round: median, min–max. Null when it was not measured. */
  value: Spread | null;
  /** The worst round's value (what the verdict is judged on). */
  worst: number | null;
  /** Whether the worst round meets the goal; null when not measured. */
  met: boolean | null;
  /** Whether the median meets it (for the text: "met in the median, not in every round"). */
  medianMet: boolean | null;
  detail: string;
}

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
