/**
 * The Node throughput targets of edge-mcp itself and their ceiling, bare node:http: modern,
 * modern with rate limits on, and legacy on one session. Spread into THROUGHPUT_TARGETS by
 * src/targets.ts.
 */

import { atLeast, LEGACY_SESSION, MODERN, node } from './target-shapes.ts';
import type { ThroughputTarget } from './target-types.ts';

export const NODE_THROUGHPUT_TARGETS: ThroughputTarget[] = [
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
    goals: atLeast(0.9, 'Node: modern tools/call vs bare node:http'),
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
    goals: atLeast(
      0.97,
      'Node: modern tools/call with rate limits vs without (cost <= 3%)',
      'node/edge-mcp/modern',
    ),
  },
  {
    id: 'node/edge-mcp/legacy-session',
    label: 'edge-mcp legacy, one session',
    runtime: 'node',
    library: 'edge-mcp',
    spec: node('node-edge.ts'),
    ...LEGACY_SESSION,
    baseline: 'node/bare',
    goals: atLeast(
      5,
      'Node: legacy tools/call on one session vs SDK v1 one session',
      'node/sdk-v1/legacy-session',
    ),
  },
];
