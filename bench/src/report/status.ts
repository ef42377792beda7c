/**
 * The Status block of the repository README, between `<!-- status:start -->` and
 * `<!-- status:end -->`: the goals of results/latest.json with their verdicts as the run recorded
 * them (met only when the worst round meets the goal): a table of the ones not met, then the
 * names of the met ones in one line (their figures are in the bench README). A full `pnpm bench`
 * and `pnpm --filter @edge-mcp/bench render` write it (write.ts); docs/test/status.test.ts renders
 * it again from latest.json and fails when the README says anything else.
 */
import { formatGoalValue, formatThreshold, table, unitOf, verdict } from './format.ts';
import type { GoalFigures } from './types.ts';

export const STATUS_START = '<!-- status:start -->';
export const STATUS_END = '<!-- status:end -->';

/** What the block reads of a results file. */
export interface StatusReport {
  date: string;
  machine: { cpuModel: string; cpuCount: number };
  config: { rounds?: number; quick?: boolean; partial?: boolean };
  load?: { noisy: boolean };
  goals: GoalFigures[];
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The block, markers included. */
export function renderStatus(report: StatusReport): string {
  const met = report.goals.filter((goal) => goal.met === true);
  const missed = report.goals.filter((goal) => goal.met === false);
  const unmeasured = report.goals.filter((goal) => goal.met === null);
  const rounds = report.config.rounds ?? 1;
  const run = report.config.partial || report.config.quick ? 'partial run' : 'full run';
  const caveats = [
    report.load?.noisy ? 'other work shared the machine: provisional' : undefined,
    report.config.partial || report.config.quick ? 'not every target: provisional' : undefined,
  ].filter((caveat) => caveat !== undefined);
  const tally = [
    `**${met.length} of ${count(report.goals.length, 'goal')} met**`,
    missed.length > 0 ? `**${missed.length} not met**` : undefined,
    unmeasured.length > 0 ? `${unmeasured.length} not measured` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  const rows = [...missed, ...unmeasured].map((goal) => [
    goal.label,
    unitOf(goal, goal.worst),
    formatGoalValue(goal),
    formatThreshold(goal),
    verdict(goal),
  ]);
  return [
    STATUS_START,
    '<!-- Written from bench/results/latest.json by `pnpm bench` (or `pnpm --filter @edge-mcp/bench render`); do not edit: docs/test/status.test.ts fails when it differs. -->',
    '',
    `**Performance** (\`pnpm bench\`, the ${run} of ${report.date.slice(0, 10)}: ${count(rounds, 'interleaved round')} on ${report.machine.cpuModel} × ${report.machine.cpuCount}${caveats.length > 0 ? `; ${caveats.join('; ')}` : ''}): ${tally}. A goal counts as met only when its worst round meets it.`,
    '',
    ...(rows.length > 0
      ? [table(['goal', 'worst round', 'median (min – max)', 'target', 'met'], rows), '']
      : []),
    ...(met.length > 0
      ? [
          `Met in every round: ${met.map((goal) => goal.label).join('; ')} (figures in [bench/README.md](bench/README.md#results)).`,
          '',
        ]
      : []),
    STATUS_END,
  ].join('\n');
}

/** Where `markdown`'s Status block starts and ends, markers included; undefined without one. */
function statusRange(markdown: string): [number, number] | undefined {
  const start = markdown.indexOf(STATUS_START);
  const end = markdown.indexOf(STATUS_END, start);
  return start < 0 || end < 0 ? undefined : [start, end + STATUS_END.length];
}

/** `markdown` with its Status block replaced by `block`; undefined when it has no markers. */
export function replaceStatus(markdown: string, block: string): string | undefined {
  const range = statusRange(markdown);
  return range && markdown.slice(0, range[0]) + block + markdown.slice(range[1]);
}

/** The Status block of `markdown`, markers included; undefined when it has none. */
export function statusOf(markdown: string): string | undefined {
  const range = statusRange(markdown);
  return range && markdown.slice(...range);
}
