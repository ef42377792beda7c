/**
 * The targets of the measures besides throughput and start-up: legacy sessions (memory and
 * `initialize` per second), and the lifecycle probes (disconnect, shutdown, fairness).
 */
import type { TargetSpec } from './lib/spawn.ts';
import { atLeast, type Entry, LEGACY, LITE, type Library, node } from './target-shapes.ts';

/** Legacy sessions on Node: idle memory per session and `initialize` per second. */
export interface SessionTarget extends Entry {
  version: string;
}

/** A Node legacy-session target against the bare `initialize` answer. */
const vsBare = (library: Library, spec: TargetSpec, version = LEGACY) =>
  ({ runtime: 'node', library, spec, version, baseline: 'node/bare-initialize' }) as const;

export const SESSION_TARGETS: SessionTarget[] = [
  {
    id: 'node/bare-initialize',
    label: 'bare initialize (keeps nothing)',
    runtime: 'node',
    library: 'bare',
    spec: node('node-bare-initialize.ts'),
    version: LEGACY,
  },
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    ...vsBare('edge-mcp', node('node-edge.ts', undefined, { MAX_SESSIONS: '1000000' })),
    goals: atLeast(15, 'Node: sessions created per second vs SDK v1', 'node/sdk-v1'),
  },
  { id: 'node/sdk-v1', label: 'SDK v1', ...vsBare('sdk-v1', node('node-sdk-v1.ts', 'session')) },
  {
    id: 'node/sdk-v2',
    label: 'SDK v2 (sessionful transport)',
    ...vsBare('sdk-v2', node('node-sdk-v2.ts', 'session')),
  },
  {
    id: 'node/mcp-lite',
    label: 'mcp-lite',
    ...vsBare('mcp-lite', node('node-mcp-lite.ts', 'session'), LITE),
  },
];

const EDGE = { label: 'edge-mcp', library: 'edge-mcp' } as const;

/**
 * A million idle legacy sessions next to a few active ones (the idle-sessions measure): the
 * measure sets MAX_SESSIONS and SESSION_IDLE_MS for the count it opens.
 */
export type IdleSessionTarget = SessionTarget;

export const IDLE_SESSION_TARGETS: IdleSessionTarget[] = [
  { id: 'node/edge-mcp', ...EDGE, runtime: 'node', spec: node('node-edge.ts'), version: LEGACY },
];

/** Client disconnect → handler abort, per runtime (edge-mcp only). */
export type ProbeTarget = Entry;

export const DISCONNECT_TARGETS: ProbeTarget[] = (['node', 'deno', 'bun'] as const).map(
  (runtime) => ({
    id: `${runtime}/edge-mcp`,
    ...EDGE,
    runtime,
    spec: runtime === 'node' ? node('node-edge.ts') : { runtime, entry: 'web-edge.ts' },
  }),
);

/** SIGTERM → exit with sessions and calls in flight. */
export const SHUTDOWN_TARGETS: ProbeTarget[] = [
  {
    id: 'node/edge-mcp',
    ...EDGE,
    runtime: 'node',
    // Its 10,000 sessions come from one address: over the per-principal default (1,000) the
    // idlest would be evicted, the sessions of the calls in flight first.
    spec: node('node-edge.ts', undefined, { MAX_SESSIONS: '1000000' }),
  },
];

/**
 * The fairness measure's per-principal bucket (src/measures/fairness.ts says why these numbers):
 * a bucket per principal only, no `total` and no per-tool bucket, so one principal cannot spend
 * another's budget and what is measured is whether its refused flood slows the other down.
 */
export const FAIRNESS_LIMIT = { perSecond: 200, burst: 200 } as const;

/**
 * A principal flooding at 10× its rate limit vs another principal's latency. `control` is the
 * server the same flood goes to in the control phase: another process on the same machine, so
 * that phase shows what the flood costs the victim through the shared cores alone.
 */
export type FairnessTarget = ProbeTarget & { control: TargetSpec };

export const FAIRNESS_TARGETS: FairnessTarget[] = [
  {
    id: 'node/edge-mcp',
    ...EDGE,
    runtime: 'node',
    spec: node('node-edge.ts', undefined, {
      RATE_LIMIT: `${FAIRNESS_LIMIT.perSecond}:${FAIRNESS_LIMIT.burst}`,
      RATE_LIMIT_SCOPE: 'principal',
    }),
    control: node('node-bare.ts'),
  },
];
