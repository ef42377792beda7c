/**
 * The registry of everything `pnpm bench` measures: one entry per target, in the
 * src/targets-*.ts file of its kind and assembled here. A new target (a Redis session manager,
 * tasks, auth on) is one more entry there and one entry file in src/entries; its ratio to its
 * baseline, and any goal it declares, show up in the tables and the verdicts without
 * further code. See README.md, "Adding a target".
 */
import type { ThroughputTarget } from './target-shapes.ts';
import { CLOUDFLARE_THROUGHPUT_TARGETS } from './targets-cloudflare.ts';
import { NODE_THROUGHPUT_TARGETS } from './targets-node.ts';
import { PACKAGE_THROUGHPUT_TARGETS } from './targets-packages.ts';
import { readmeTargets, readmeWorkerTargets } from './targets-readme.ts';
import { runtimeTargets, WORKERD_THROUGHPUT_TARGETS } from './targets-runtimes.ts';

export type { Entry, Library, RatioGoal, ThroughputTarget } from './target-shapes.ts';
export { LEGACY } from './target-shapes.ts';
export {
  DISCONNECT_TARGETS,
  FAIRNESS_LIMIT,
  FAIRNESS_TARGETS,
  type FairnessTarget,
  IDLE_SESSION_TARGETS,
  type IdleSessionTarget,
  type ProbeTarget,
  SESSION_TARGETS,
  type SessionTarget,
  SHUTDOWN_TARGETS,
} from './targets-sessions-probes.ts';
export { STARTUP_TARGETS, type StartupTarget } from './targets-startup.ts';

/** The order of the one list this was: selections and rounds go by it, and so do the tables. */
export const THROUGHPUT_TARGETS: ThroughputTarget[] = [
  ...NODE_THROUGHPUT_TARGETS,
  ...PACKAGE_THROUGHPUT_TARGETS,
  ...runtimeTargets('deno'),
  ...runtimeTargets('bun'),
  ...readmeTargets('node'),
  ...readmeTargets('deno'),
  ...readmeTargets('bun'),
  ...WORKERD_THROUGHPUT_TARGETS,
  ...CLOUDFLARE_THROUGHPUT_TARGETS,
  ...readmeWorkerTargets(),
];
