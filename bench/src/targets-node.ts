/**
 * The Node throughput targets: edge-mcp itself and its ceiling, bare node:http (modern, modern
 * with rate limits on, legacy on one session); edge-mcp in a Hono app against a bare Hono route;
 * and the other MCP servers (the official SDK v2 and v1, mcp-lite) against bare node:http.
 * Spread into THROUGHPUT_TARGETS by src/targets.ts.
 */
import type { Library, ThroughputTarget } from './target-shapes.ts';
import { atLeast, LEGACY_SESSION, LEGACY_STATELESS, LITE, MODERN, node } from './target-shapes.ts';

/** A Node target of `library` on `entry` in `mode`, against bare node:http. */
const vsBare = (library: Library, entry: string, mode?: string, env?: Record<string, string>) =>
  ({ runtime: 'node', library, spec: node(entry, mode, env), baseline: 'node/bare' }) as const;
const hono = (mode: string) => ({ ...vsBare('edge-mcp', 'node-hono.ts', mode), ...MODERN });

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
    ...vsBare('edge-mcp', 'node-edge.ts'),
    ...MODERN,
    goals: atLeast(0.9, 'Node: modern tools/call vs bare node:http'),
  },
  {
    id: 'node/edge-mcp-ratelimit/modern',
    label: 'edge-mcp modern, rate limits on',
    // Buckets per principal, per tool and in total, high enough never to refuse the load: what
    // taking a token from three buckets costs every call (the byte budget and the per-principal
    // count are always on, in both targets).
    ...vsBare('edge-mcp', 'node-edge.ts', undefined, { RATE_LIMIT: '1000000000:1000000000' }),
    ...MODERN,
    goals: atLeast(
      0.97,
      'Node: modern tools/call with rate limits vs without (cost <= 3%)',
      'node/edge-mcp/modern',
    ),
  },
  {
    id: 'node/edge-mcp/legacy-session',
    label: 'edge-mcp legacy, one session',
    ...vsBare('edge-mcp', 'node-edge.ts'),
    ...LEGACY_SESSION,
    goals: atLeast(
      5,
      'Node: legacy tools/call on one session vs SDK v1 one session',
      'node/sdk-v1/legacy-session',
    ),
  },
  {
    id: 'node/hono/bare',
    label: 'bare Hono route (cors, bodyLimit, logger)',
    ...hono('bare'),
    library: 'bare',
  },
  {
    id: 'node/hono/edge-mcp/modern',
    label: 'edge-mcp modern in that Hono app',
    ...hono('edge'),
    baseline: 'node/hono/bare',
    goals: atLeast(0.8, 'Node in Hono (cors, bodyLimit, logger): modern vs a bare route'),
  },
  {
    id: 'node/hono/edge-mcp/legacy-session',
    label: 'edge-mcp legacy in that Hono app',
    ...hono('edge'),
    ...LEGACY_SESSION,
    baseline: 'node/hono/bare',
  },
  {
    id: 'node/sdk-v2/modern',
    label: 'SDK v2 modern',
    ...vsBare('sdk-v2', 'node-sdk-v2.ts', 'handler'),
    ...MODERN,
  },
  {
    id: 'node/sdk-v2/legacy-stateless',
    label: 'SDK v2 legacy, stateless',
    ...vsBare('sdk-v2', 'node-sdk-v2.ts', 'handler'),
    ...LEGACY_STATELESS,
  },
  {
    id: 'node/sdk-v2/legacy-session',
    label: 'SDK v2 legacy, one session',
    ...vsBare('sdk-v2', 'node-sdk-v2.ts', 'session'),
    ...LEGACY_SESSION,
  },
  {
    id: 'node/sdk-v1/legacy-stateless',
    label: 'SDK v1 stateless',
    ...vsBare('sdk-v1', 'node-sdk-v1.ts', 'stateless'),
    ...LEGACY_STATELESS,
  },
  {
    id: 'node/sdk-v1/legacy-session',
    label: 'SDK v1 one session',
    ...vsBare('sdk-v1', 'node-sdk-v1.ts', 'session'),
    ...LEGACY_SESSION,
  },
  {
    id: 'node/mcp-lite/legacy-stateless',
    label: 'mcp-lite stateless',
    ...vsBare('mcp-lite', 'node-mcp-lite.ts', 'stateless'),
    ...LEGACY_STATELESS,
    version: LITE,
  },
  {
    id: 'node/mcp-lite/legacy-session',
    label: 'mcp-lite one session',
    ...vsBare('mcp-lite', 'node-mcp-lite.ts', 'session'),
    ...LEGACY_SESSION,
    version: LITE,
  },
];
