/** One goal's verdict, and how a measure makes one (its rounds' values against a threshold). */
import { type Spread, spread, worst } from '../lib/stats.ts';
import type { GoalFigures } from './format.ts';

/** A goal's figures (format.ts) and what they were measured from. */
export interface Goal extends GoalFigures {
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
