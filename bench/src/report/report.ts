/** What one run wrote: its environment, configuration, load, results and verdicts. */
import type { LoadAverage } from '../lib/system.ts';
import type { Environment } from './environment.ts';
import type { Goal } from './goal.ts';
import type { Results } from './goals.ts';

export interface Report extends Environment {
  config: Record<string, unknown> & { partial: boolean };
  /**
   * The machine's load average when the run started and when it ended (the end counts the run's
   * own processes), the cores other work used on average during the run (null without /proc),
   * and whether that makes the run noisy.
   */
  load?: { start: LoadAverage; end: LoadAverage; othersCores?: number | null; noisy: boolean };
  results: Results;
  goals: Goal[];
}
