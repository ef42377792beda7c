/**
 * How the reports write numbers, goals and tables: pure functions on a goal's figures, shared by
 * the tables (table.ts), the chart (svg.ts) and the repository README's Status (status.ts).
 */
import type { Spread } from '../lib/stats.ts';

/** What the formatters read of a goal: a `Goal` of goals.ts, or one read back from a results file. */
export interface GoalFigures {
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
}

/** A Markdown table with its columns padded; `right` lists the right-aligned columns. */
export function table(head: string[], rows: string[][], right: number[] = []): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const cell = (text: string, i: number) =>
    right.includes(i) ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (right.includes(i) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

export const n = (value: number | null | undefined, digits = 0) =>
  value !== null && value !== undefined && Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : 'n/a';

/** A value in the goal's unit: `0.81×`, `566 B`, `5.39 ms`. */
export function unitOf(goal: GoalFigures, value: number | null): string {
  if (value === null) return 'n/a';
  const digits = goal.unit === 'B' ? 0 : 2;
  return goal.unit === '×' ? `${n(value, digits)}×` : `${n(value, digits)} ${goal.unit}`;
}

/** The goal's median and range: `0.81× (0.78–0.83)`. */
export function formatGoalValue(goal: GoalFigures): string {
  if (!goal.value) return 'n/a';
  const v = goal.value;
  const mid = unitOf(goal, v.median);
  return v.n < 2 ? mid : `${mid} (${unitOf(goal, v.min)} – ${unitOf(goal, v.max)})`;
}

export function formatThreshold(goal: GoalFigures): string {
  return `${goal.comparison} ${goal.unit === '×' ? `${goal.threshold}×` : `${goal.threshold} ${goal.unit}`}`;
}

export function verdict(goal: GoalFigures): string {
  if (goal.met === null) return 'not measured';
  if (goal.met) return 'yes';
  return goal.medianMet ? 'NO (median yes)' : 'NO';
}

/** `33,310 (32,100–34,020)`: the median and, over more than one round, the min–max. */
export function s(value: Spread | null | undefined, digits = 0, suffix = ''): string {
  if (!value) return 'n/a';
  const mid = `${n(value.median, digits)}${suffix}`;
  if (value.n < 2) return mid;
  return `${mid} (${n(value.min, digits)}–${n(value.max, digits)})`;
}
