/**
 * The throughput targets of the packages beyond the core (issue 16 item 5, issue 15): Redis
 * sessions against memory sessions (with Redis round trips per call), tasks per second, and
 * JWT auth on against auth off. Spread into THROUGHPUT_TARGETS by src/targets.ts; type imports
 * only from there (it imports this file).
 */

import type { PerCallFigure } from './lib/driver.ts';
import {
  jwksService,
  redisClusterService,
  redisService,
  unavailableRedis,
} from './lib/services.ts';
import { tasksDriver } from './lib/task-load.ts';
import type { ThroughputTarget } from './target-shapes.ts';
import { atLeast, LEGACY, LEGACY_SESSION, MODERN, node } from './target-shapes.ts';

const EDGE = { runtime: 'node', library: 'edge-mcp' } as const;
/** Redis round trips per request the server handled (the entry's counters), at most `max`. */
const roundTrips = (label: string, max?: number): PerCallFigure => ({
  name: 'redisRoundTrips',
  label,
  ...(max === undefined ? {} : { max }),
  per: 'requests',
});
const TASKS_GET = { name: 'tasksGetPerTask', label: 'tasks/get per task' };

export const PACKAGE_THROUGHPUT_TARGETS: ThroughputTarget[] = [
  {
    id: 'node/edge-mcp-redis/legacy-session',
    label: 'edge-mcp legacy, one session, Redis sessions',
    ...EDGE,
    spec: { ...node('node-edge-redis.ts'), service: redisService },
    ...LEGACY_SESSION,
    // The "×" column is the ratio to memory sessions; memory sessions come along with it.
    baseline: 'node/edge-mcp/legacy-session',
    goals: atLeast(0.5, 'Node: legacy tools/call, Redis sessions vs memory sessions'),
    perCall: [roundTrips('Node: Redis round trips per legacy tools/call (state unchanged)', 1)],
    unavailable: unavailableRedis,
  },
  {
    id: 'node/edge-mcp-redis-cluster/legacy-session',
    label: 'edge-mcp legacy, one session, Redis Cluster sessions (3 primaries + 3 replicas)',
    ...EDGE,
    spec: { ...node('node-edge-redis.ts'), service: redisClusterService },
    ...LEGACY_SESSION,
    // Issue 26: a cluster session costs about what a one-primary session does.
    baseline: 'node/edge-mcp-redis/legacy-session',
    goals: atLeast(0.9, 'Node: legacy tools/call, Redis Cluster sessions vs one primary'),
    perCall: [
      roundTrips('Node: Redis Cluster round trips per legacy tools/call (state unchanged)', 1),
    ],
    unavailable: unavailableRedis,
  },
  {
    id: 'node/edge-mcp-auth/modern',
    label: 'edge-mcp modern, JWT auth on (RS256, JWKS cached, verified tokens cached)',
    ...EDGE,
    spec: { ...node('node-edge.ts', 'auth'), service: jwksService },
    ...MODERN,
    // Auth off is the same server without the `auth` option (no MODE).
    baseline: 'node/edge-mcp/modern',
    goals: atLeast(0.8, 'Node: modern tools/call, JWT auth on vs off'),
  },
  {
    // For context (no goal): what the verified-token cache saves.
    id: 'node/edge-mcp-auth-nocache/modern',
    label: 'edge-mcp modern, JWT auth on, every token verified (cache: false)',
    ...EDGE,
    spec: { ...node('node-edge.ts', 'auth-nocache'), service: jwksService },
    ...MODERN,
    baseline: 'node/edge-mcp/modern',
  },
  {
    id: 'node/edge-mcp-tasks/legacy-memory',
    label: 'edge-mcp tasks (create + poll + result) per s, memory store',
    ...EDGE,
    spec: node('node-edge.ts', 'tasks'),
    ...LEGACY_SESSION,
    driver: tasksDriver(LEGACY),
    perCall: [TASKS_GET],
    // For context only (no goal): one task is at least three requests.
    baseline: 'node/edge-mcp/modern',
  },
  {
    id: 'node/edge-mcp-redis/tasks',
    label: 'edge-mcp tasks (create + poll + result) per s, Redis store',
    ...EDGE,
    spec: { ...node('node-edge-redis.ts', 'tasks'), service: redisService },
    ...LEGACY_SESSION,
    driver: tasksDriver(LEGACY),
    perCall: [
      TASKS_GET,
      roundTrips('Redis round trips per request (create, tasks/get, tasks/result)'),
    ],
    baseline: 'node/edge-mcp/modern',
    unavailable: unavailableRedis,
  },
];
