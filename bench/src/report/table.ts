/** Markdown tables of a run: printed to stdout and written into bench/README.md. */
import type { Environment } from './environment.ts';
import type { Goal, Results } from './goals.ts';

function table(head: string[], rows: string[][], right: number[] = []): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const cell = (text: string, i: number) =>
    right.includes(i) ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (right.includes(i) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : 'n/a';

export function formatGoalValue(goal: Goal): string {
  if (goal.value === null) return 'n/a';
  const digits = goal.unit === '×' ? 2 : goal.unit === 'ms' ? 2 : 0;
  return goal.unit === '×' ? `${n(goal.value, digits)}×` : `${n(goal.value, digits)} ${goal.unit}`;
}

export function renderTables(env: Environment, results: Results, goals: Goal[]): string {
  const parts: string[] = [];
  const v = env.versions;
  parts.push(
    `Run ${env.date} on ${env.machine.cpuModel} × ${env.machine.cpuCount}, ${env.machine.memoryGiB} GiB, ${env.machine.os}; ` +
      `Node ${v.node}, Deno ${v.deno}, Bun ${v.bun}; edge-mcp ${v.git}${v.gitDirty ? ' (uncommitted changes)' : ''}.`,
  );
  if (results.throughput.length > 0) {
    parts.push(
      '**tools/call echo under load** (autocannon, 50 connections; × bare = against the bare handler of the same runtime, this run)',
      table(
        ['target', 'runtime', 'answer', 'req/s', '× bare', 'p50 ms', 'p99 ms', 'failed', 'RSS MiB'],
        results.throughput.map((r) =>
          r.error
            ? [r.label, r.runtime, 'error', r.error.slice(0, 60), '', '', '', '', '']
            : [
                r.label,
                r.runtime,
                r.answer,
                n(r.rps),
                r.ratioToBare === null ? '' : `${n(r.ratioToBare, 2)}×`,
                String(r.p50Ms),
                String(r.p99Ms),
                String(r.failed),
                n(r.rssMiB, 1),
              ],
        ),
        [3, 4, 5, 6, 7, 8],
      ),
    );
  }
  if (results.sessions.length > 0) {
    const bareInit = results.sessions.find((r) => r.id === 'node/bare-initialize')?.initPerS;
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
        results.sessions.map((r) => [
          r.label,
          n(r.sessions),
          n(r.initPerS),
          bareInit ? `${n(r.initPerS / bareInit, 2)}×` : 'n/a',
          String(r.p99Ms),
          n(r.heapBytesPerSession),
          n(r.rssBytesPerSession),
          n(r.rssAfterMiB, 1),
        ]),
        [1, 2, 3, 4, 5, 6, 7],
      ),
    );
  }
  if (results.disconnect.length > 0) {
    parts.push(
      '**Disconnect → handler abort** (edge-mcp, 2026-07-28 `sleep` dropped after its first progress event)',
      table(
        ['runtime', 'drops', 'failed', 'p50 ms', 'p99 ms', 'max ms'],
        results.disconnect.map((r) => [
          r.runtime,
          String(r.drops),
          String(r.failures),
          n(r.p50Ms, 2),
          n(r.p99Ms, 2),
          n(r.maxMs, 2),
        ]),
        [1, 2, 3, 4, 5],
      ),
    );
  }
  if (results.shutdown) {
    const s = results.shutdown;
    const outcomes = Object.entries(s.callOutcomes)
      .map(([key, count]) => `${count}× ${key}`)
      .join(', ');
    parts.push(
      `**Shutdown** (edge-mcp on Node, SIGTERM → exit): ${n(s.exitMs, 1)} ms with ${n(s.sessions)} sessions and ${s.inFlight} calls in flight; exit code ${s.exitCode}; the calls ended with ${outcomes}.`,
    );
  }
  parts.push(
    '**Targets**',
    table(
      ['goal', 'measured', 'target', 'met', 'detail'],
      goals.map((g) => [
        g.label,
        formatGoalValue(g),
        `${g.comparison} ${g.unit === '×' ? `${g.threshold}×` : `${g.threshold} ${g.unit}`}`,
        g.met === null ? 'n/a' : g.met ? 'yes' : 'NO',
        g.detail,
      ]),
    ),
  );
  return parts.join('\n\n');
}
