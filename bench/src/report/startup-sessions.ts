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
      '**Start-up to the first answered `tools/call`** (edge-mcp and the zod floor load the packages installed from the tarballs, the README\u2019s server run by its command; the bare handlers and the SDK are bundles; spawn → answer, over every counted start; × = round medians against the bare handler of the runtime; CPU = the CPU time the process had used when its answer arrived)',
      results.startup,
      [
        ['target', (r) => r.label],
        ['runtime', (r) => r.runtime],
        ['file KiB', (r) => n(r.bundleBytes / 1024, 1), true],
        ['starts', (r) => String(r.samples.length), true],
        ['ms', (r) => (r.ms ? s(r.ms, 1) : problem(r)), true],
        ['× bare', (r) => (r.ratio ? s(r.ratio, 2, '×') : ''), true],
        ['CPU ms', (r) => s(r.cpuMs, 1), true],
      ],
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
      results.sessions,
      [
        ['target', (r) => r.label],
        ['sessions', (r) => n(r.sessions), true],
        ['initialize/s', (r) => s(r.initPerS), true],
        ['× bare', (r) => (r.ratio ? s(r.ratio, 2, '×') : ''), true],
        ['p99 ms', (r) => s(r.p99Ms), true],
        ['heap B/session', (r) => s(r.heapBytesPerSession), true],
        ['RSS B/session', (r) => s(r.rssBytesPerSession), true],
        ['RSS MiB after', (r) => n(r.rssAfterMiB?.median, 1), true],
      ],
      (r) => (r.initPerS ? undefined : [r.label, 'error', problem(r)]),
    ),
};
