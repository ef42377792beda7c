/**
 * The issue's targets, judged from one run. Every goal is computed per round (a ratio from the
 * two targets' figures of the same round), reported as the median and min–max of its rounds, and
 * counts as met only when its worst round meets it (the lowest value for `>=`, the highest for
 * `<=`). Ratio goals come from the registry (src/targets.ts); the absolute ones are below.
 */

import { median, pairedRatios } from '../lib/stats.ts';
import type { CloudflareResults } from '../measures/cloudflare.ts';
import type { DisconnectRow } from '../measures/disconnect.ts';
import type { FairnessRow } from '../measures/fairness.ts';
import { initByRound, type SessionRow } from '../measures/sessions.ts';
import type { ShutdownRow } from '../measures/shutdown.ts';
import type { StartupRow } from '../measures/startup.ts';
import { rpsByRound, type ThroughputRow } from '../measures/throughput.ts';
import {
  type RatioGoal,
  SESSION_TARGETS,
  STARTUP_TARGETS,
  THROUGHPUT_TARGETS,
} from '../targets.ts';
import { cloudflareGoals } from './cloudflare.ts';
import { fairnessGoals } from './fairness.ts';
import { type Goal, goal } from './goal.ts';

export { type Goal, goal } from './goal.ts';

export interface Results {
  throughput: ThroughputRow[];
  startup: StartupRow[];
  sessions: SessionRow[];
  disconnect: DisconnectRow[];
  shutdown: ShutdownRow[];
  /** A principal flooding at 10× its rate limit vs another's latency (absent in older runs). */
  fairness?: FairnessRow[];
  /** Storage operations and deployed bundles on Cloudflare (absent in runs from before them). */
  cloudflare?: CloudflareResults;
}

const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);

/** A ratio goal between two rows measured in the same rounds. */
function ratioGoal<Row extends { id: string; errors: string[] }>(
  rows: readonly Row[],
  id: string,
  baseline: string | undefined,
  spec: RatioGoal,
  byRound: (row: Row) => Map<number, number>,
  unit: string,
): Goal | undefined {
  const row = rows.find((r) => r.id === id);
  if (!row) return undefined;
  const againstId = spec.against ?? baseline;
  const against = rows.find((r) => r.id === againstId);
  const mine = byRound(row);
  const theirs = against ? byRound(against) : new Map<number, number>();
  const ratios = pairedRatios(mine, theirs);
  const detail = against
    ? `${fixed(median([...mine.values()]))} vs ${fixed(median([...theirs.values()]))} ${unit} (${againstId}), medians of ${ratios.length} round${ratios.length === 1 ? '' : 's'}`
    : `${againstId} not measured`;
  const failure =
    row.errors.length > 0 || (against?.errors.length ?? 0) > 0
      ? `${row.errors.length + (against?.errors.length ?? 0)} round(s) failed`
      : undefined;
  return goal(spec.label, '×', spec.comparison, spec.threshold, ratios, detail, failure);
}

/** Failed rounds of a row, said as a goal's failure; undefined when none failed. */
function failedRounds(row: { errors: string[] }): string | undefined {
  return row.errors.length > 0 ? `${row.errors.length} round(s) failed` : undefined;
}

function throughputGoals(results: Results): Goal[] {
  const goals: Goal[] = [];
  for (const target of THROUGHPUT_TARGETS) {
    for (const spec of target.goals ?? []) {
      const g = ratioGoal(
        results.throughput,
        target.id,
        target.baseline,
        spec,
        rpsByRound,
        'req/s',
      );
      if (g) goals.push(g);
    }
    const row = results.throughput.find((r) => r.id === target.id);
    for (const figure of target.perCall ?? []) {
      if (!row || figure.max === undefined) continue;
      goals.push(
        goal(
          figure.label,
          'per call',
          '<=',
          figure.max,
          row.perCall?.[figure.name] ?? null,
          `${target.id}, over the measured seconds (${figure.per ? `per request the server handled` : 'per call answered'})`,
          failedRounds(row),
        ),
      );
    }
  }
  return goals;
}

function startupAndSessionGoals(results: Results): Array<Goal | undefined> {
  const goals: Array<Goal | undefined> = [];
  for (const target of STARTUP_TARGETS)
    for (const spec of target.goals ?? [])
      goals.push(
        ratioGoal(results.startup, target.id, target.baseline, spec, startupByRound, 'ms'),
      );
  const edge = results.sessions.find((row) => row.id === 'node/edge-mcp');
  if (edge) {
    goals.push(
      goal(
        'Node: heap per idle legacy session',
        'B',
        '<=',
        2048,
        edge.heapBytesPerSession,
        `heapUsed delta over ${edge.sessions} sessions, after GC`,
        failedRounds(edge),
      ),
      goal(
        'Node: RSS per idle legacy session',
        'B',
        '<=',
        2048,
        edge.rssBytesPerSession,
        `RSS delta over ${edge.sessions} sessions after as many as a warm-up, after GC (warm-up batch: ${fixed(edge.warmUpRssBytesPerSession?.median)} B)`,
        failedRounds(edge),
      ),
    );
  }
  for (const target of SESSION_TARGETS)
    for (const spec of target.goals ?? [])
      goals.push(
        ratioGoal(results.sessions, target.id, target.baseline, spec, initByRound, 'initialize/s'),
      );
  return goals;
}

function lifecycleGoals(results: Results): Goal[] {
  const goals: Goal[] = [];
  for (const row of results.disconnect) {
    const failure =
      row.failures > 0 || row.errors.length > 0
        ? `${row.failures} drops failed, ${row.errors.length} round(s) failed`
        : undefined;
    goals.push(
      goal(
        `${row.runtime}: disconnect → abort p99`,
        'ms',
        '<=',
        10,
        row.p99Ms,
        `p50 ${fixed(row.p50Ms?.median, 2)} ms, max ${fixed(row.maxMs?.max, 2)} ms; ${row.drops} drops per round`,
        failure,
      ),
    );
  }
  for (const row of results.shutdown) {
    const badExit = row.exitCodes.some((code) => code !== 0);
    const failure =
      badExit || row.errors.length > 0
        ? `exit codes ${row.exitCodes.join(', ')}; ${row.errors.length} round(s) failed`
        : undefined;
    goals.push(
      goal(
        'Node: shutdown with sessions + in-flight calls, to exit',
        'ms',
        '<=',
        200,
        row.exitMs,
        `${row.sessions} sessions, ${row.inFlight} in flight`,
        failure,
      ),
    );
  }
  return goals;
}

/** Every goal of a run, judged on its results, in the order the README lists them. */
export function judge(results: Results): Goal[] {
  return [
    ...throughputGoals(results),
    ...startupAndSessionGoals(results).filter((g): g is Goal => g !== undefined),
    ...lifecycleGoals(results),
    ...fairnessGoals(results.fairness),
    ...cloudflareGoals(results.cloudflare),
  ];
}

/** A start-up row's median start per round. */
export function startupByRound(row: Pick<StartupRow, 'samples'>): Map<number, number> {
  const rounds = new Map<number, number[]>();
  for (const sample of row.samples) {
    rounds.set(sample.round, [...(rounds.get(sample.round) ?? []), sample.ms]);
  }
  return new Map([...rounds].map(([round, values]) => [round, median(values)]));
}
