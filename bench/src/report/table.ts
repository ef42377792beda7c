/** Markdown tables of a run: printed to stdout and written into bench/README.md. */
import { formatLoad, NOISY_LOAD, NOISY_OTHERS } from '../lib/system.ts';
import { THROUGHPUT_TARGETS } from '../targets.ts';
import { cloudflareTables } from './cloudflare.ts';
import { fairnessTables } from './fairness.ts';
import { formatGoalValue, formatThreshold, n, s, table, unitOf, verdict } from './format.ts';
import type { Results } from './goals.ts';
import type { Report } from './report.ts';

function errorsOf(row: { errors: string[]; skipped?: string }): string {
  if (row.skipped) return `skipped: ${row.skipped.slice(0, 60)}`;
  return row.errors.length > 0
    ? `${row.errors.length} round(s) failed: ${row.errors[0]!.slice(0, 60)}`
    : '';
}

export function runLine(report: Report): string {
  const v = report.versions;
  const c = report.config as {
    rounds?: number;
    duration?: number;
    warmup?: number;
    quick?: boolean;
  };
  const load = report.load;
  const noisy = load?.noisy;
  const others =
    load?.othersCores === undefined || load.othersCores === null
      ? ''
      : `; other work used ${n(load.othersCores, 2)} cores on average during the run`;
  return (
    `Run ${report.date} on ${report.machine.cpuModel} × ${report.machine.cpuCount}, ${report.machine.memoryGiB} GiB, ${report.machine.os}; ` +
    `Node ${v.node}, Deno ${v.deno}, Bun ${v.bun}${v.wrangler ? `, wrangler ${v.wrangler}` : ''}; edge-mcp ${v.git}${v.gitDirty ? ' (uncommitted changes)' : ''}. ` +
    `${c.rounds ?? 1} round${(c.rounds ?? 1) === 1 ? '' : 's'}${c.quick ? ' (quick)' : ''}` +
    (c.duration !== undefined
      ? `, ${c.warmup} s warm-up + ${c.duration} s per target and round`
      : '') +
    (load
      ? `; load average (1/5/15 min) ${formatLoad(load.start)} at the start, ${formatLoad(load.end)} at the end (counting the run itself)${others}${noisy ? ` — **other work shared the CPU (load above ${NOISY_LOAD} at the start, or other work above ${NOISY_OTHERS} cores): the figures are noisy, provisional**` : ''}.`
      : '.')
  );
}

function throughputTables(report: Report): string[] {
  const parts: string[] = [];
  const results = report.results;
  if (results.throughput.length > 0) {
    parts.push(
      `**tools/call echo under load** (autocannon, ${(report.config as { connections?: number }).connections ?? 50} connections; × = against the target named in "vs", measured in the same round; CPU = the server's CPU time per answered request)`,
      table(
        [
          'target',
          'runtime',
          'answer',
          'req/s',
          '×',
          'vs',
          'p99 ms',
          'CPU µs/req',
          'failed',
          'RSS MiB',
        ],
        results.throughput.map((r) => {
          const problem = errorsOf(r);
          if (!r.rps) return [r.label, r.runtime, 'error', problem, '', '', '', '', '', ''];
          return [
            r.label,
            r.runtime,
            r.answer,
            s(r.rps),
            r.ratio ? s(r.ratio, 2, '×') : '',
            r.baseline ?? '',
            s(r.p99Ms),
            s(r.cpuUsPerRequest, 1),
            problem ? `${r.failed}; ${problem}` : String(r.failed),
            n(r.rssMiB?.median, 1),
          ];
        }),
        [3, 4, 6, 7, 8, 9],
      ),
    );
    const perCall = results.throughput.flatMap((r) => {
      const figures = THROUGHPUT_TARGETS.find((t) => t.id === r.id)?.perCall ?? [];
      return Object.entries(r.perCall ?? {}).map(
        ([name, value]) =>
          `${r.label}: ${figures.find((f) => f.name === name)?.label ?? name} ${s(value, 2)}`,
      );
    });
    if (perCall.length > 0)
      parts.push(`**Per call** (over the measured seconds): ${perCall.join('; ')}.`);
  }
  return parts;
}

function startupTable(results: Results): string[] {
  const parts: string[] = [];
  if (results.startup.length > 0) {
    parts.push(
      '**Start-up to the first answered `tools/call`** (a bundle per runtime; spawn → answer, over every counted start; × = round medians against the bare handler of the runtime; CPU = the CPU time the process had used when its answer arrived)',
      table(
        ['target', 'runtime', 'bundle KiB', 'starts', 'ms', '× bare', 'CPU ms'],
        results.startup.map((r) => [
          r.label,
          r.runtime,
          n(r.bundleBytes / 1024, 1),
          String(r.samples.length),
          r.ms ? s(r.ms, 1) : errorsOf(r),
          r.ratio ? s(r.ratio, 2, '×') : '',
          s(r.cpuMs, 1),
        ]),
        [2, 3, 4, 5, 6],
      ),
    );
  }
  return parts;
}

function sessionsTable(results: Results): string[] {
  const parts: string[] = [];
  if (results.sessions.length > 0) {
    parts.push(
      '**Idle legacy sessions** (Node; initialize/s over a timed run; memory delta after GC over the second batch)',
      table(
        [
          'target',
          'sessions',
          'initialize/s',
          '× bare',
          'p99 ms',
          'heap B/session',
          'RSS B/session',
          'RSS MiB after',
        ],
        results.sessions.map((r) =>
          r.initPerS
            ? [
                r.label,
                n(r.sessions),
                s(r.initPerS),
                r.ratio ? s(r.ratio, 2, '×') : '',
                s(r.p99Ms),
                s(r.heapBytesPerSession),
                s(r.rssBytesPerSession),
                n(r.rssAfterMiB?.median, 1),
              ]
            : [r.label, 'error', errorsOf(r), '', '', '', '', ''],
        ),
        [1, 2, 3, 4, 5, 6, 7],
      ),
    );
  }
  return parts;
}

function disconnectTable(results: Results): string[] {
  const parts: string[] = [];
  if (results.disconnect.length > 0) {
    parts.push(
      '**Disconnect → handler abort** (edge-mcp, 2026-07-28 `sleep` dropped after its first progress event; percentiles per round)',
      table(
        ['runtime', 'drops/round', 'failed', 'p50 ms', 'p99 ms', 'max ms'],
        results.disconnect.map((r) => [
          r.runtime,
          String(r.drops),
          r.errors.length > 0 ? `${r.failures}; ${errorsOf(r)}` : String(r.failures),
          s(r.p50Ms, 2),
          s(r.p99Ms, 2),
          s(r.maxMs, 2),
        ]),
        [1, 2, 3, 4, 5],
      ),
    );
  }
  return parts;
}

function shutdownLines(results: Results): string[] {
  const parts: string[] = [];
  for (const r of results.shutdown) {
    const outcomes = Object.entries(r.callOutcomes)
      .map(([key, count]) => `${count}× ${key}`)
      .join(', ');
    parts.push(
      `**Shutdown** (edge-mcp on Node, SIGTERM → exit): ${s(r.exitMs, 1, ' ms')} with ${n(r.sessions)} sessions and ${r.inFlight} calls in flight; exit codes ${r.exitCodes.join(', ') || 'n/a'}; the calls ended with ${outcomes || 'n/a'}${r.errors.length > 0 ? `; ${errorsOf(r)}` : ''}.`,
    );
  }
  return parts;
}

function goalsTable(goals: Report['goals']): string[] {
  const parts: string[] = [];
  parts.push(
    '**Targets** (met = met in the worst round)',
    table(
      ['goal', 'median (min – max)', 'worst round', 'target', 'met', 'detail'],
      goals.map((g) => [
        g.label,
        formatGoalValue(g),
        unitOf(g, g.worst),
        formatThreshold(g),
        verdict(g),
        g.detail,
      ]),
    ),
  );
  return parts;
}

export function renderTables(report: Report): string {
  const results: Results = report.results;
  return [
    runLine(report),
    'Figures are medians of the rounds, with their min–max in brackets; every ratio is taken within a round (both targets measured in it) and then summarised.',
    ...throughputTables(report),
    ...startupTable(results),
    ...sessionsTable(results),
    ...disconnectTable(results),
    ...shutdownLines(results),
    ...fairnessTables(results.fairness),
    ...cloudflareTables(results.cloudflare),
    ...goalsTable(report.goals),
  ].join('\n\n');
}
