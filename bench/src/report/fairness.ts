/**
 * The fairness measure in the report: its goal (the victim's p99 while another principal sends
 * 10× its rate limit at most 1.10 × its p99 alone, judged on the worst round like every other)
 * and its table.
 */
import type { FairnessRow, PhaseSpread } from '../measures/fairness.ts';
import { type Column, n, s, titled } from './format.ts';
import { goal } from './goal.ts';
import type { Section } from './types.ts';

export const FAIRNESS_GOAL = 1.1;

const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([, a], [, b]) => b - a)
    .map(([key, count]) => `${n(count)}× ${key}`)
    .join(', ') || 'none';

function fairnessGoals(rows: readonly FairnessRow[] | undefined) {
  return (rows ?? []).map((row) => {
    const problems = [
      row.victimErrors > 0 ? `${row.victimErrors} victim calls not answered 200` : undefined,
      row.errors.length > 0 ? `${row.errors.length} round(s) failed` : undefined,
    ].filter((problem) => problem !== undefined);
    const { alone, attack } = row.phases;
    return goal(
      'Node: victim p99 while another principal sends 10× its rate limit, vs alone',
      '×',
      '<=',
      FAIRNESS_GOAL,
      row.ratio,
      `p99 ${s(alone.p99Ms, 2)} ms alone, ${s(attack.p99Ms, 2)} ms under attack, ${s(row.controlRatio, 2, '×')} with the same flood sent to another process; limit ${row.limit.perSecond}/s per principal, victim ${row.victimRate}/s, attacker ${row.attackerRate}/s (${statusList(row.attackerStatuses)})`,
      problems.length > 0 ? problems.join('; ') : undefined,
    );
  });
}

interface PhaseLine {
  label: string;
  phase: PhaseSpread;
  ratio: string;
}

const COLUMNS: Column<PhaseLine>[] = [
  ['victim', (l) => l.label],
  ['calls', (l) => n(l.phase.calls), true],
  ['errors', (l) => String(l.phase.errors), true],
  ['p50 ms', (l) => s(l.phase.p50Ms, 2), true],
  ['p99 ms', (l) => s(l.phase.p99Ms, 2), true],
  ['p99 / alone', (l) => l.ratio, true],
  ['victim send lag ms', (l) => s(l.phase.maxLagMs, 1), true],
  ['server CPU µs/req', (l) => s(l.phase.serverCpuUsPerRequest, 1), true],
  ['flood client cores', (l) => (l.phase.floodCores ? s(l.phase.floodCores, 2) : ''), true],
];

function fairnessTables(rows: readonly FairnessRow[] | undefined): string[] {
  return (rows ?? []).map((row) => {
    const failed = row.errors.length > 0 ? `; ${row.errors.length} round(s) failed` : '';
    const { alone, attack, control } = row.phases;
    return titled(
      `**Fairness** (edge-mcp on Node with a bucket of ${row.limit.perSecond}/s, burst ${row.limit.burst}, per principal only; the victim sends modern \`tools/call\` echo open-loop at ${row.victimRate}/s from 127.0.0.1; the flood, ${row.attackerRate}/s open-loop from 127.0.0.2 in a process of its own, goes to the same server (under attack) or to a bare node:http process on the same machine (control); 2 × ${row.segmentSeconds} s per phase and round; percentiles per round; calls over every round; victim send lag = how late the victim's client sent its worst call against its schedule (its own process stalled that long); server CPU = edge-mcp's per request it answered, 429s included; the attacker's answers over every round: ${statusList(row.attackerStatuses)}${failed})`,
      [
        { label: 'alone', phase: alone, ratio: '' },
        { label: 'under attack', phase: attack, ratio: s(row.ratio, 2, '×') },
        {
          label: 'flood to another process (control)',
          phase: control,
          ratio: s(row.controlRatio, 2, '×'),
        },
      ],
      COLUMNS,
    ).join('\n\n');
  });
}

export const fairnessSection: Section = {
  goals: (results) => fairnessGoals(results.fairness),
  tables: ({ results }) => fairnessTables(results.fairness),
};
