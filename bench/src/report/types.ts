/**
 * The shapes of the report: what a results file holds, a goal's verdict, and the `Section` each
 * measure contributes (its goals and its tables), which the generic renderers iterate.
 */
import type { Spread } from '../lib/stats.ts';
import type { LoadAverage } from '../lib/system.ts';
import type { CloudflareResults } from '../measures/cloudflare.ts';
import type { CrossCancelRow } from '../measures/cross-cancel.ts';
import type { DisconnectRow } from '../measures/disconnect.ts';
import type { FairnessRow } from '../measures/fairness.ts';
import type { IdleSessionRow } from '../measures/idle-sessions.ts';
import type { ProxySseRow } from '../measures/proxy-sse.ts';
import type { SessionRow } from '../measures/sessions.ts';
import type { ShutdownRow } from '../measures/shutdown.ts';
import type { StartupRow } from '../measures/startup.ts';
import type { ThroughputRow } from '../measures/throughput.ts';
import type { Environment } from './environment.ts';

/** What the formatters read of a goal: a `Goal`, or one read back from a results file. */
export interface GoalFigures {
  label: string;
  unit: '×' | 'B' | 'MiB' | 'ms' | 'per call' | 'per 1,000 calls';
  comparison: '>=' | '<=';
  threshold: number;
  /** The goal's value per round: median, min–max. Null when it was not measured. */
  value: Spread | null;
  /** The worst round's value (what the verdict is judged on). */
  worst: number | null;
  /** Whether the worst round meets the goal; null when not measured. */
  met: boolean | null;
  /** Whether the median meets it (for the text: "met in the median, not in every round"). */
  medianMet: boolean | null;
}

/** A goal's figures and what they were measured from. */
export interface Goal extends GoalFigures {
  detail: string;
}

/** A measure that did not run (BENCH_MEASURES, or a run from before it existed) is absent. */
export interface Results {
  throughput: ThroughputRow[];
  startup: StartupRow[];
  sessions: SessionRow[];
  idleSessions?: IdleSessionRow[];
  disconnect: DisconnectRow[];
  shutdown: ShutdownRow[];
  fairness?: FairnessRow[];
  cloudflare?: CloudflareResults;
  crossCancel?: CrossCancelRow[];
  proxySse?: ProxySseRow[];
}

/** What one run wrote: its environment, configuration, load, results and verdicts. */
export interface Report extends Environment {
  config: Record<string, unknown> & { partial: boolean; rounds?: number; quick?: boolean };
  /**
   * The machine's load average when the run started and when it ended (the end counts the run's
   * own processes), the cores other work used on average during the run (null without /proc),
   * and whether that makes the run noisy.
   */
  load?: { start: LoadAverage; end: LoadAverage; othersCores?: number | null; noisy: boolean };
  results: Results;
  goals: Goal[];
}

/** One measure in the report; the list in sections.ts gives the order of goals and tables. */
export interface Section {
  /** Its verdicts, judged on the worst round. */
  goals(results: Results): Goal[];
  /** Its tables and lines for the Results section; none when the measure did not run. */
  tables(report: Report): string[];
}
