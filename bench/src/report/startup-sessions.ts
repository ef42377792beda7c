/**
 * The start-up and idle-session measures in the report: their goals (the ratios the registry
 * declares, and at most 2 KiB of heap and of RSS per idle session) and their tables.
 */
import { roundMedians } from '../lib/stats.ts';
import { SESSION_TARGETS, STARTUP_TARGETS } from '../targets.ts';
import { fixed, n, problem, s, titled } from './format.ts';
import { failed, goal, ratioGoals } from './goal.ts';
import type { Section } from './types.ts';

export const startupSection: Section = {
  goals: ({ startup }) =>
    STARTUP_TARGETS.flatMap((target) =>
      ratioGoals(startup, target, (row) => roundMedians(row.samples, (x) => x.ms), 'ms'),
    ),
  tables: ({ results }) =>
    titled(
      '**Start-up to the first answered `tools/call`** (a bundle per runtime; spawn → answer, over every counted start; × = round medians against the bare handler of the runtime; CPU = the CPU time the process had used when its answer arrived)',
      ['target', 'runtime', 'bundle KiB', 'starts', 'ms', '× bare', 'CPU ms'],
      results.startup,
      (r) => [
        r.label,
        r.runtime,
        n(r.bundleBytes / 1024, 1),
        String(r.samples.length),
        r.ms ? s(r.ms, 1) : problem(r),
        r.ratio ? s(r.ratio, 2, '×') : '',
        s(r.cpuMs, 1),
      ],
      [2, 3, 4, 5, 6],
    ),
};

/** At most this many bytes of heap, and of RSS, per idle legacy session. */
const MAX_BYTES_PER_SESSION = 2048;

export const sessionsSection: Section = {
  goals: ({ sessions }) => {
    const edge = sessions.find((row) => row.id === 'node/edge-mcp');
    const memory = edge
      ? [
          goal(
            'Node: heap per idle legacy session',
            'B',
            '<=',
            MAX_BYTES_PER_SESSION,
            edge.heapBytesPerSession,
            `heapUsed delta over ${edge.sessions} sessions, after GC`,
            failed(edge),
          ),
          goal(
            'Node: RSS per idle legacy session',
            'B',
            '<=',
            MAX_BYTES_PER_SESSION,
            edge.rssBytesPerSession,
            `RSS delta over ${edge.sessions} sessions after as many as a warm-up, after GC (warm-up batch: ${fixed(edge.warmUpRssBytesPerSession?.median)} B)`,
            failed(edge),
          ),
        ]
      : [];
    const byRound = (row: (typeof sessions)[number]) =>
      roundMedians(row.samples, (x) => x.initPerS);
    return [
      ...memory,
      ...SESSION_TARGETS.flatMap((target) => ratioGoals(sessions, target, byRound, 'initialize/s')),
    ];
  },
  tables: ({ results }) =>
    titled(
      '**Idle legacy sessions** (Node; initialize/s over a timed run; memory delta after GC over the second batch)',
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
      results.sessions,
      (r) =>
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
          : [r.label, 'error', problem(r), '', '', '', '', ''],
      [1, 2, 3, 4, 5, 6, 7],
    ),
};
