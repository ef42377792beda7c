/**
 * The Node throughput targets edge-mcp is compared with: edge-mcp in a Hono app against a bare
 * Hono route, and the other MCP servers (the official SDK v2 and v1, mcp-lite) against bare
 * node:http. Spread into THROUGHPUT_TARGETS by src/targets.ts.
 */

import { atLeast, LEGACY_SESSION, LEGACY_STATELESS, LITE, MODERN, node } from './target-shapes.ts';
import type { ThroughputTarget } from './target-types.ts';

export const PEER_THROUGHPUT_TARGETS: ThroughputTarget[] = [
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
    goals: atLeast(0.8, 'Node in Hono (cors, bodyLimit, logger): modern vs a bare route'),
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
];
