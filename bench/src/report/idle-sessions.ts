/**
 * The idle-sessions measure in the report (issue 25, item 3): a million idle legacy sessions on
 * Node in at most 1.5 GiB of RSS, the sweep's turns at most 10 ms late at p99, and the active
 * sessions' p99 at most 10% above what it is without the idle ones.
 */
import type { IdleSessionRow } from '../measures/idle-sessions.ts';
import { fixed, n, problem, titled } from './format.ts';
import { failed, goal } from './goal.ts';
import type { Section } from './types.ts';

/** The count the RSS goal is set for: a smaller run (the CI smoke) is not judged on it. */
const GOAL_SESSIONS = 1_000_000;
const MAX_RSS_MIB = 1536;
const MAX_SWEEP_LAG_MS = 10;
const MAX_ACTIVE_P99_RATIO = 1.1;

export const idleSessionsSection: Section = {
  goals: ({ idleSessions = [] }) =>
    idleSessions.flatMap((row: IdleSessionRow) => {
      const sample = row.samples[0];
      const full = sample !== undefined && sample.sessions >= GOAL_SESSIONS;
      const count = sample ? n(sample.sessions) : 'no';
      return [
        goal(
          'Node: RSS with 1,000,000 idle legacy sessions',
          'MiB',
          '<=',
          MAX_RSS_MIB,
          full ? [sample.rssWithMiB] : null,
          full
            ? `whole process after GC (${fixed(sample.rssBytesPerSession)} B per session over ${fixed(sample.rssBeforeMiB)} MiB before)`
            : `judged at ${n(GOAL_SESSIONS)} sessions; this run opened ${count}`,
          failed(row),
        ),
        goal(
          'Node: idle sweep, event-loop lag p99 of its turns',
          'ms',
          '<=',
          MAX_SWEEP_LAG_MS,
          sample ? [sample.sweep.p99Ms] : null,
          sample
            ? `a 1 ms timer in the server over the ${n(sample.sweep.ticks)} ticks where ${count} sessions were reaped, in ${fixed(sample.sweep.seconds)} s (max ${fixed(sample.sweep.maxMs, 1)} ms)`
            : 'not measured',
          failed(row),
        ),
        goal(
          'Node: active sessions p99 with the idle ones / without',
          '×',
          '<=',
          MAX_ACTIVE_P99_RATIO,
          sample ? [sample.with.p99Ms / sample.alone.p99Ms] : null,
          sample
            ? `legacy echo, open-loop, ${n(sample.alone.calls)} and ${n(sample.with.calls)} calls: p99 ${fixed(sample.alone.p99Ms, 2)} → ${fixed(sample.with.p99Ms, 2)} ms with ${count} idle sessions${sample.idleDwellS === undefined ? '' : `, after they sat ${sample.idleDwellS} s`}`
            : 'not measured',
          failed(row),
        ),
      ];
    }),
  tables: ({ results }) =>
    titled(
      '**Idle sessions at scale** (Node, one round; the idle sessions are opened by `initialize` and left alone, `BENCH_IDLE_DWELL` s before the active calls run with them; 4 active sessions send legacy `tools/call echo` open-loop at 1,000 calls/s in all, without the idle sessions, with them, and while the sweep reaps them; RSS after GC; sweep lag = how late a 1 ms timer in the server fired in the turns the sweep reaped sessions in)',
      results.idleSessions?.map((row) => ({ row, x: row.samples[0]! })),
      [
        ['target', ({ row }) => row.label],
        ['idle sessions', ({ x }) => n(x.sessions), true],
        ['initialize/s', ({ x }) => n(x.openPerS), true],
        ['RSS MiB before', ({ x }) => n(x.rssBeforeMiB), true],
        ['RSS MiB with', ({ x }) => n(x.rssWithMiB), true],
        ['B/session', ({ x }) => n(x.rssBytesPerSession), true],
        ['RSS MiB after sweep', ({ x }) => n(x.rssAfterSweepMiB), true],
        ['sweep s', ({ x }) => n(x.sweep.seconds), true],
        ['sweep lag p99 ms', ({ x }) => n(x.sweep.p99Ms, 2), true],
        ['max ms', ({ x }) => n(x.sweep.maxMs, 1), true],
        ['active p99 ms alone', ({ x }) => n(x.alone.p99Ms, 2), true],
        ['with', ({ x }) => n(x.with.p99Ms, 2), true],
        ['during sweep', ({ x }) => n(x.duringSweep.p99Ms, 2), true],
      ],
      ({ row, x }) => (x ? undefined : [row.label, 'error', problem(row)]),
    ),
};
