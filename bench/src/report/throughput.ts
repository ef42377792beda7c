/**
 * The throughput measure in the report: the ratio goals and per-call goals its registry entries
 * declare (src/targets.ts), the tools/call table and the per-call line.
 */
import { roundMedians } from '../lib/stats.ts';
import { cpuByRound, type ThroughputRow } from '../measures/throughput.ts';
import { THROUGHPUT_TARGETS } from '../targets.ts';
import { type Column, n, problem, s, titled } from './format.ts';
import { failed, goal, ratioGoals } from './goal.ts';
import type { Goal, Section } from './types.ts';

export const rpsByRound = (row: ThroughputRow) => roundMedians(row.samples, (x) => x.rps);

/** The target with only its goals on `of` (req/s or CPU per call). */
function goalsOf(target: (typeof THROUGHPUT_TARGETS)[number], of: 'rps' | 'cpu') {
  return { ...target, goals: target.goals?.filter((g) => (g.of ?? 'rps') === of) };
}

function perCallGoals(rows: readonly ThroughputRow[], target: (typeof THROUGHPUT_TARGETS)[number]) {
  const row = rows.find((r) => r.id === target.id);
  if (!row) return [];
  return (target.perCall ?? []).flatMap((figure): Goal[] =>
    figure.max === undefined
      ? []
      : [
          goal(
            figure.label,
            'per call',
            '<=',
            figure.max,
            row.perCall?.[figure.name] ?? null,
            `${target.id}, over the measured seconds (${figure.per ? 'per request the server handled' : 'per call answered'})`,
            failed(row),
          ),
        ],
  );
}

function perCallLine(rows: readonly ThroughputRow[]): string[] {
  const lines = rows.flatMap((r) => {
    const figures = THROUGHPUT_TARGETS.find((t) => t.id === r.id)?.perCall ?? [];
    return Object.entries(r.perCall ?? {}).map(
      ([name, value]) =>
        `${r.label}: ${figures.find((f) => f.name === name)?.label ?? name} ${s(value, 2)}`,
    );
  });
  return lines.length > 0 ? [`**Per call** (over the measured seconds): ${lines.join('; ')}.`] : [];
}

const COLUMNS: Column<ThroughputRow>[] = [
  ['target', (r) => r.label],
  ['runtime', (r) => r.runtime],
  ['answer', (r) => r.answer],
  ['req/s', (r) => s(r.rps), true],
  ['×', (r) => (r.ratio ? s(r.ratio, 2, '×') : ''), true],
  ['vs', (r) => r.baseline ?? ''],
  ['p99 ms', (r) => s(r.p99Ms), true],
  ['CPU µs/req', (r) => s(r.cpuUsPerRequest, 1), true],
  ['CPU ×', (r) => (r.cpuRatio ? s(r.cpuRatio, 2, '×') : ''), true],
  ['failed', (r) => (problem(r) ? `${r.failed}; ${problem(r)}` : String(r.failed)), true],
  ['RSS MiB', (r) => n(r.rssMiB?.median, 1), true],
];

export const throughputSection: Section = {
  goals: ({ throughput }) =>
    THROUGHPUT_TARGETS.flatMap((target) => [
      ...ratioGoals(throughput, goalsOf(target, 'rps'), rpsByRound, 'req/s'),
      ...ratioGoals(throughput, goalsOf(target, 'cpu'), cpuByRound, 'µs CPU/call'),
      ...perCallGoals(throughput, target),
    ]),
  tables: (report) => [
    ...titled(
      `**tools/call echo under load** (autocannon, ${(report.config as { connections?: number }).connections ?? 50} connections; × = req/s against the target named in "vs", measured in the same round; CPU = the server's CPU time per answered request, every thread of its process group, and CPU × its ratio to the "vs" target's: where the load client saturates first, req/s ratios near 1 say little and CPU × is the verdict)`,
      report.results.throughput,
      COLUMNS,
      (r) => (r.rps ? undefined : [r.label, r.runtime, 'error', problem(r)]),
    ),
    ...perCallLine(report.results.throughput),
  ],
};
