/**
 * The report's generic renderers: every measure is one `Section`, and the verdicts and the
 * Results tables are its sections' in this order (the order the README lists them).
 */
import { formatLoad, NOISY_LOAD, NOISY_OTHERS } from '../lib/system.ts';
import { cloudflareSection } from './cloudflare.ts';
import { crossCancelSection, proxySseSection } from './example.ts';
import { fairnessSection } from './fairness.ts';
import { formatGoalValue, formatThreshold, n, table, unitOf, verdict } from './format.ts';
import { idleSessionsSection } from './idle-sessions.ts';
import { disconnectSection, shutdownSection } from './lifecycle.ts';
import { sessionsSection, startupSection } from './startup-sessions.ts';
import { throughputSection } from './throughput.ts';
import type { Goal, Report, Results, Section } from './types.ts';

export const SECTIONS: readonly Section[] = [
  throughputSection,
  startupSection,
  sessionsSection,
  idleSessionsSection,
  disconnectSection,
  shutdownSection,
  crossCancelSection,
  proxySseSection,
  fairnessSection,
  cloudflareSection,
];

/** Every goal of a run, judged on its results. */
export function judge(results: Results): Goal[] {
  return SECTIONS.flatMap((section) => section.goals(results));
}

/** Date, machine, versions, rounds and load of the run, in one line. */
export function runLine(report: Report): string {
  const v = report.versions;
  const c = report.config as { rounds?: number; duration?: number; warmup?: number };
  const rounds = c.rounds ?? 1;
  const load = report.load;
  const others =
    load?.othersCores === undefined || load.othersCores === null
      ? ''
      : `; other work used ${n(load.othersCores, 2)} cores on average during the run`;
  const noisy = load?.noisy
    ? ` — **other work shared the CPU (load above ${NOISY_LOAD} at the start, or other work above ${NOISY_OTHERS} cores): the figures are noisy, provisional**`
    : '';
  return (
    `Run ${report.date} on ${report.machine.cpuModel} × ${report.machine.cpuCount}, ${report.machine.memoryGiB} GiB, ${report.machine.os}; ` +
    `Node ${v.node}, Deno ${v.deno}, Bun ${v.bun}${v.wrangler ? `, wrangler ${v.wrangler}` : ''}; edge-mcp ${v.git}${v.gitDirty ? ' (uncommitted changes)' : ''}. ` +
    `${rounds} round${rounds === 1 ? '' : 's'}${report.config.quick ? ' (quick)' : ''}` +
    (c.duration !== undefined
      ? `, ${c.warmup} s warm-up + ${c.duration} s per target and round`
      : '') +
    (load
      ? `; load average (1/5/15 min) ${formatLoad(load.start)} at the start, ${formatLoad(load.end)} at the end (counting the run itself)${others}${noisy}.`
      : '.')
  );
}

/** The Results section's Markdown: the run line, every section's tables, then the verdicts. */
export function renderTables(report: Report): string {
  return [
    runLine(report),
    'Figures are medians of the rounds, with their min–max in brackets; every ratio is taken within a round (both targets measured in it) and then summarised.',
    ...SECTIONS.flatMap((section) => section.tables(report)),
    '**Targets** (met = met in the worst round)',
    table(
      ['goal', 'median (min – max)', 'worst round', 'target', 'met', 'detail'],
      report.goals.map((g) => [
        g.label,
        formatGoalValue(g),
        unitOf(g, g.worst),
        formatThreshold(g),
        verdict(g),
        g.detail,
      ]),
    ),
  ].join('\n\n');
}
