/**
 * The lifecycle probes in the report: disconnect → abort (p99 at most 10 ms per runtime) and
 * shutdown (at most 200 ms to exit), their goals and their lines.
 */
import { failedCell, fixed, n, problem, s, titled } from './format.ts';
import { failedProbes, goal } from './goal.ts';
import type { Section } from './types.ts';

export const disconnectSection: Section = {
  goals: ({ disconnect }) =>
    disconnect.map((row) =>
      goal(
        `${row.runtime}: disconnect → abort p99`,
        'ms',
        '<=',
        10,
        row.p99Ms,
        `p50 ${fixed(row.p50Ms?.median, 2)} ms, max ${fixed(row.maxMs?.max, 2)} ms; ${row.drops} drops per round`,
        failedProbes(row, row.failures, 'drops'),
      ),
    ),
  tables: ({ results }) =>
    titled(
      '**Disconnect → handler abort** (edge-mcp, 2026-07-28 `sleep` dropped after its first progress event; percentiles per round)',
      results.disconnect,
      [
        ['runtime', (r) => r.runtime],
        ['drops/round', (r) => String(r.drops), true],
        ['failed', failedCell, true],
        ['p50 ms', (r) => s(r.p50Ms, 2), true],
        ['p99 ms', (r) => s(r.p99Ms, 2), true],
        ['max ms', (r) => s(r.maxMs, 2), true],
      ],
    ),
};

export const shutdownSection: Section = {
  goals: ({ shutdown }) =>
    shutdown.map((row) =>
      goal(
        'Node: shutdown with sessions + in-flight calls, to exit',
        'ms',
        '<=',
        200,
        row.exitMs,
        `${row.sessions} sessions, ${row.inFlight} in flight`,
        row.exitCodes.some((code) => code !== 0) || row.errors.length > 0
          ? `exit codes ${row.exitCodes.join(', ')}; ${row.errors.length} round(s) failed`
          : undefined,
      ),
    ),
  tables: ({ results }) =>
    results.shutdown.map((r) => {
      const outcomes = Object.entries(r.callOutcomes)
        .map(([key, count]) => `${count}× ${key}`)
        .join(', ');
      return `**Shutdown** (edge-mcp on Node, SIGTERM → exit): ${s(r.exitMs, 1, ' ms')} with ${n(r.sessions)} sessions and ${r.inFlight} calls in flight; exit codes ${r.exitCodes.join(', ') || 'n/a'}; the calls ended with ${outcomes || 'n/a'}${r.errors.length > 0 ? `; ${problem(r)}` : ''}.`;
    }),
};
