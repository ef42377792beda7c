/**
 * How the reports write numbers, goals and tables: pure functions shared by the sections'
 * tables and the repository README's Status (status.ts).
 */
import type { Spread } from '../lib/stats.ts';
import type { GoalFigures } from './types.ts';

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
  const digits = goal.unit === 'B' || goal.unit === 'MiB' ? 0 : 2;
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

/** A table's column: its head, its cell of a row, and whether it is right-aligned. */
export type Column<Row> = readonly [head: string, cell: (row: Row) => string, right?: true];

/**
 * A table under its bold title; nothing when the measure has no rows. A row `broken` gives
 * cells for (one without figures) takes them, the rest of its cells empty.
 */
export function titled<Row>(
  title: string,
  rows: readonly Row[] | undefined,
  columns: readonly Column<Row>[],
  broken?: (row: Row) => string[] | undefined,
): string[] {
  if (!rows?.length) return [];
  const cells = rows.map((row) => {
    const head = broken?.(row);
    if (!head) return columns.map(([, cell]) => cell(row));
    return [...head, ...columns.slice(head.length).map(() => '')];
  });
  const right = columns.flatMap(([, , alignRight], i) => (alignRight ? [i] : []));
  return [
    title,
    table(
      columns.map(([head]) => head),
      cells,
      right,
    ),
  ];
}

/** Why a row has no figures: skipped, or its first failed round. */
export function problem(row: { errors: string[]; skipped?: string }): string {
  if (row.skipped) return `skipped: ${row.skipped.slice(0, 60)}`;
  return row.errors.length > 0
    ? `${row.errors.length} round(s) failed: ${row.errors[0]!.slice(0, 60)}`
    : '';
}

/** A probe's failed samples, and why rounds failed or the row was skipped. */
export const failedCell = (r: { failures: number; errors: string[]; skipped?: string }) =>
  r.errors.length > 0 || r.skipped ? `${r.failures}; ${problem(r)}` : String(r.failures);

/** `12.34`, or `n/a` when not measured. */
export const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
