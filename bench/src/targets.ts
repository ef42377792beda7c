/**
 * The registry of everything `pnpm bench` measures: one entry per target. A new target (a Redis
 * session manager, tasks, auth on) is one more entry here and one entry file in src/entries; its
 * ratio to its baseline, and any goal it declares, show up in the tables, the chart and the
 * verdicts without further code. See README.md, "Adding a target".
 */
import { wranglerScript } from './lib/paths.ts';
import type { TargetSpec } from './lib/spawn.ts';
import type { Entry, ThroughputTarget } from './target-types.ts';
import { CLOUDFLARE_THROUGHPUT_TARGETS } from './targets-cloudflare.ts';
import { PACKAGE_THROUGHPUT_TARGETS } from './targets-packages.ts';

export type { Entry, Library, RatioGoal, ThroughputTarget } from './target-types.ts';

export const LEGACY = '2025-11-25';
const LITE = '2025-06-18';

const node = (entry: string, mode?: string, env: Record<string, string> = {}): TargetSpec => ({
  runtime: 'node',
  entry,
  env: mode ? { ...env, MODE: mode } : env,
});

function unavailableWrangler(): string | undefined {
  try {
    wranglerScript();
    return undefined;
  } catch (error) {
    return `wrangler not found (apps/worker's devDependency): ${error instanceof Error ? error.message : error}`;
  }
}

type Shape = Pick<ThroughputTarget, 'era' | 'session' | 'version'>;
const MODERN: Shape = { era: 'modern', session: false, version: LEGACY };
const LEGACY_SESSION: Shape = { era: 'legacy', session: true, version: LEGACY };
const LEGACY_STATELESS: Shape = { era: 'legacy', session: false, version: LEGACY };

const RUNTIME_NAME = { node: 'Node', deno: 'Deno', bun: 'Bun', workerd: 'workerd' } as const;

/** edge-mcp modern and legacy on Deno or Bun, against the runtime's bare handler. */
function runtimeTargets(runtime: 'deno' | 'bun'): ThroughputTarget[] {
  const baseline = `${runtime}/bare`;
  const spec: TargetSpec = { runtime, entry: `${runtime}-edge.ts` };
  return [
    {
      id: baseline,
      label: `bare ${RUNTIME_NAME[runtime]}.serve`,
      runtime,
      library: 'bare',
      spec: { runtime, entry: `${runtime}-bare.ts` },
      ...MODERN,
    },
    {
      id: `${runtime}/edge-mcp/modern`,
      label: 'edge-mcp modern',
      runtime,
      library: 'edge-mcp',
      spec,
      ...MODERN,
      baseline,
      goals: [
        {
          comparison: '>=',
          threshold: 0.9,
          label: `${RUNTIME_NAME[runtime]}: modern tools/call vs bare ${RUNTIME_NAME[runtime]}.serve`,
        },
      ],
    },
    {
      id: `${runtime}/edge-mcp/legacy-session`,
      label: 'edge-mcp legacy, one session',
      runtime,
      library: 'edge-mcp',
      spec,
      ...LEGACY_SESSION,
      baseline,
    },
  ];
}

export const THROUGHPUT_TARGETS: ThroughputTarget[] = [
  {
    id: 'node/bare',
    label: 'bare node:http',
    runtime: 'node',
    library: 'bare',
    spec: node('node-bare.ts'),
    ...MODERN,
  },
  {
    id: 'node/edge-mcp/modern',
    label: 'edge-mcp modern',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts'),
    ...MODERN,
    baseline: 'node/bare',
    goals: [
      {
        comparison: '>=',
        threshold: 0.9,
        label: 'Node: modern tools/call vs bare node:http',
      },
    ],
  },
  {
    id: 'node/edge-mcp-ratelimit/modern',
    label: 'edge-mcp modern, rate limits on',
    runtime: 'node',
    library: 'edge-mcp',
    // Buckets per principal, per tool and in total, high enough never to refuse the load: what
    // taking a token from three buckets costs every call (the byte budget and the per-principal
    // count are always on, in both targets).
    spec: node('node-edge.ts', undefined, { RATE_LIMIT: '1000000000:1000000000' }),
    ...MODERN,
    baseline: 'node/bare',
    goals: [
      {
        against: 'node/edge-mcp/modern',
        comparison: '>=',
        threshold: 0.97,
        label: 'Node: modern tools/call with rate limits vs without (cost <= 3%)',
      },
    ],
  },
  {
    id: 'node/edge-mcp/legacy-session',
    label: 'edge-mcp legacy, one session',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts'),
    ...LEGACY_SESSION,
    baseline: 'node/bare',
    goals: [
      {
        against: 'node/sdk-v1/legacy-session',
        comparison: '>=',
        threshold: 5,
        label: 'Node: legacy tools/call on one session vs SDK v1 one session',
      },
    ],
  },
  {
    id: 'node/hono/bare',
    label: 'bare Hono route (cors, bodyLimit, logger)',
    runtime: 'node',
    library: 'bare',
    spec: node('node-hono.ts', 'bare'),
    ...MODERN,
    baseline: 'node/bare',
  },
  {
    id: 'node/hono/edge-mcp/modern',
    label: 'edge-mcp modern in that Hono app',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-hono.ts', 'edge'),
    ...MODERN,
    baseline: 'node/hono/bare',
    goals: [
      {
        comparison: '>=',
        threshold: 0.8,
        label: 'Node in Hono (cors, bodyLimit, logger): modern vs a bare route',
      },
    ],
  },
  {
    id: 'node/hono/edge-mcp/legacy-session',
    label: 'edge-mcp legacy in that Hono app',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-hono.ts', 'edge'),
    ...LEGACY_SESSION,
    baseline: 'node/hono/bare',
  },
  {
    id: 'node/sdk-v2/modern',
    label: 'SDK v2 modern',
    runtime: 'node',
    library: 'sdk-v2',
    spec: node('node-sdk-v2.ts', 'handler'),
    ...MODERN,
    baseline: 'node/bare',
  },
  {
    id: 'node/sdk-v2/legacy-stateless',
    label: 'SDK v2 legacy, stateless',
    runtime: 'node',
    library: 'sdk-v2',
    spec: node('node-sdk-v2.ts', 'handler'),
    ...LEGACY_STATELESS,
    baseline: 'node/bare',
  },
  {
    id: 'node/sdk-v2/legacy-session',
    label: 'SDK v2 legacy, one session',
    runtime: 'node',
    library: 'sdk-v2',
    spec: node('node-sdk-v2.ts', 'session'),
    ...LEGACY_SESSION,
    baseline: 'node/bare',
  },
  {
    id: 'node/sdk-v1/legacy-stateless',
    label: 'SDK v1 stateless',
    runtime: 'node',
    library: 'sdk-v1',
    spec: node('node-sdk-v1.ts', 'stateless'),
    ...LEGACY_STATELESS,
    baseline: 'node/bare',
  },
  {
    id: 'node/sdk-v1/legacy-session',
    label: 'SDK v1 one session',
    runtime: 'node',
    library: 'sdk-v1',
    spec: node('node-sdk-v1.ts', 'session'),
    ...LEGACY_SESSION,
    baseline: 'node/bare',
  },
  {
    id: 'node/mcp-lite/legacy-stateless',
    label: 'mcp-lite stateless',
    runtime: 'node',
    library: 'mcp-lite',
    spec: node('node-mcp-lite.ts', 'stateless'),
    ...LEGACY_STATELESS,
    version: LITE,
    baseline: 'node/bare',
  },
  {
    id: 'node/mcp-lite/legacy-session',
    label: 'mcp-lite one session',
    runtime: 'node',
    library: 'mcp-lite',
    spec: node('node-mcp-lite.ts', 'session'),
    ...LEGACY_SESSION,
    version: LITE,
    baseline: 'node/bare',
  },
  ...PACKAGE_THROUGHPUT_TARGETS,
  ...runtimeTargets('deno'),
  ...runtimeTargets('bun'),
  {
    id: 'workerd/bare',
    label: 'bare Worker (wrangler dev)',
    runtime: 'workerd',
    library: 'bare',
    spec: { runtime: 'workerd', entry: 'workerd-bare.ts' },
    ...MODERN,
    unavailable: unavailableWrangler,
  },
  {
    id: 'workerd/edge-mcp/modern',
    label: 'edge-mcp modern, createWorker (wrangler dev)',
    runtime: 'workerd',
    library: 'edge-mcp',
    spec: { runtime: 'workerd', entry: 'workerd-edge.ts' },
    ...MODERN,
    baseline: 'workerd/bare',
    goals: [
      {
        comparison: '>=',
        threshold: 0.8,
        label: 'workerd: modern tools/call vs a bare Worker',
      },
    ],
    unavailable: unavailableWrangler,
  },
  ...CLOUDFLARE_THROUGHPUT_TARGETS,
];

/** Legacy sessions on Node: idle memory per session and `initialize` per second. */
export interface SessionTarget extends Entry {
  version: string;
}

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
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts', undefined, { MAX_SESSIONS: '1000000' }),
    version: LEGACY,
    baseline: 'node/bare-initialize',
    goals: [
      {
        against: 'node/sdk-v1',
        comparison: '>=',
        threshold: 15,
        label: 'Node: sessions created per second vs SDK v1',
      },
    ],
  },
  {
    id: 'node/sdk-v1',
    label: 'SDK v1',
    runtime: 'node',
    library: 'sdk-v1',
    spec: node('node-sdk-v1.ts', 'session'),
    version: LEGACY,
    baseline: 'node/bare-initialize',
  },
  {
    id: 'node/sdk-v2',
    label: 'SDK v2 (sessionful transport)',
    runtime: 'node',
    library: 'sdk-v2',
    spec: node('node-sdk-v2.ts', 'session'),
    version: LEGACY,
    baseline: 'node/bare-initialize',
  },
  {
    id: 'node/mcp-lite',
    label: 'mcp-lite',
    runtime: 'node',
    library: 'mcp-lite',
    spec: node('node-mcp-lite.ts', 'session'),
    version: LITE,
    baseline: 'node/bare-initialize',
  },
];

/** Client disconnect → handler abort, per runtime (edge-mcp only). */
export type ProbeTarget = Entry;

export const DISCONNECT_TARGETS: ProbeTarget[] = (['node', 'deno', 'bun'] as const).map(
  (runtime) => ({
    id: `${runtime}/edge-mcp`,
    label: 'edge-mcp',
    runtime,
    library: 'edge-mcp',
    spec: runtime === 'node' ? node('node-edge.ts') : { runtime, entry: `${runtime}-edge.ts` },
  }),
);

/** SIGTERM → exit with sessions and calls in flight. */
export const SHUTDOWN_TARGETS: ProbeTarget[] = [
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts'),
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
    label: 'edge-mcp',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts', undefined, {
      RATE_LIMIT: `${FAIRNESS_LIMIT.perSecond}:${FAIRNESS_LIMIT.burst}`,
      RATE_LIMIT_SCOPE: 'principal',
    }),
    control: node('node-bare.ts'),
  },
];

/**
 * Process start → first answered `tools/call`, from a bundle as a user ships it (src/startup,
 * bundled by esbuild for the runtime; no side channel, no tsx). `spec.entry` is the file in
 * src/startup.
 */
export type StartupTarget = Entry & { runtime: 'node' | 'deno' | 'bun' };

function startupTargets(runtime: 'node' | 'deno' | 'bun'): StartupTarget[] {
  const name = RUNTIME_NAME[runtime];
  const baseline = `${runtime}/bare`;
  const bare = runtime === 'node' ? 'node:http' : `${name}.serve`;
  return [
    {
      id: baseline,
      label: `bare ${bare}`,
      runtime,
      library: 'bare',
      spec: { runtime, entry: `bare-${runtime}.ts` },
    },
    {
      id: `${runtime}/edge-mcp`,
      label: 'edge-mcp',
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'edge.ts' },
      baseline,
      goals: [
        {
          comparison: '<=',
          threshold: 1.5,
          label: `${name}: start-up to first answer vs bare ${bare}`,
        },
      ],
    },
    {
      // For context (no goal): the bare handler plus zod (load, schemas, JSON Schema export,
      // validation), the floor of any server whose tools are described with zod.
      id: `${runtime}/bare-zod`,
      label: `bare ${bare} + zod (a zod server's floor)`,
      runtime,
      library: 'bare',
      spec: { runtime, entry: runtime === 'node' ? 'bare-zod-node.ts' : 'bare-zod-web.ts' },
      baseline,
    },
    {
      // For context (no goal): the same server with JSON Schema tools, so without zod.
      id: `${runtime}/edge-mcp-plain`,
      label: 'edge-mcp, JSON Schema tools (no zod)',
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'edge-plain.ts' },
      baseline,
    },
    {
      id: `${runtime}/sdk-v2`,
      label: 'SDK v2',
      runtime,
      library: 'sdk-v2',
      spec: { runtime, entry: runtime === 'node' ? 'sdk-v2-node.ts' : 'sdk-v2-web.ts' },
      baseline,
    },
  ];
}

export const STARTUP_TARGETS: StartupTarget[] = [
  ...startupTargets('node'),
  ...startupTargets('deno'),
  ...startupTargets('bun'),
];
