/**
 * The throughput targets on the other runtimes: edge-mcp on Deno and Bun against their bare
 * handlers, and on workerd (`wrangler dev`) against a bare Worker. Spread into
 * THROUGHPUT_TARGETS by src/targets.ts.
 */
import type { TargetSpec } from './lib/spawn.ts';
import type { ThroughputTarget } from './target-shapes.ts';
import { atLeast, LEGACY_SESSION, MODERN, RUNTIME_NAME } from './target-shapes.ts';
import { WORKERD } from './targets-cloudflare.ts';

/** edge-mcp modern and legacy on Deno or Bun, against the runtime's bare handler. */
export function runtimeTargets(runtime: 'deno' | 'bun'): ThroughputTarget[] {
  const baseline = `${runtime}/bare`;
  const spec: TargetSpec = { runtime, entry: 'web-edge.ts' };
  return [
    {
      id: baseline,
      label: `bare ${RUNTIME_NAME[runtime]}.serve`,
      runtime,
      library: 'bare',
      spec: { runtime, entry: 'web-bare.ts' },
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
      goals: atLeast(
        0.9,
        `${RUNTIME_NAME[runtime]}: modern tools/call vs bare ${RUNTIME_NAME[runtime]}.serve`,
      ),
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

export const WORKERD_THROUGHPUT_TARGETS: ThroughputTarget[] = [
  {
    id: 'workerd/bare',
    label: 'bare Worker (wrangler dev)',
    ...WORKERD,
    library: 'bare',
    spec: { runtime: 'workerd', entry: 'workerd-bare.ts' },
    ...MODERN,
  },
  {
    id: 'workerd/edge-mcp/modern',
    label: 'edge-mcp modern, createWorker (wrangler dev)',
    ...WORKERD,
    library: 'edge-mcp',
    spec: { runtime: 'workerd', entry: 'workerd-edge.ts' },
    ...MODERN,
    baseline: 'workerd/bare',
    goals: atLeast(0.8, 'workerd: modern tools/call vs a bare Worker'),
  },
];
