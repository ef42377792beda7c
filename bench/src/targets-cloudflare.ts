/**
 * The Cloudflare part of the registry (issue 16, "the Cloudflare costs"): edge-mcp's legacy
 * session through the Worker → Durable Object hop and Cloudflare's `agents` package on the same
 * `wrangler dev`, the Durable Object storage operations per call, and the bundle a user deploys.
 * Imported by src/targets.ts; it must not import values from there (they would not be defined
 * yet when this module runs), only types.
 */
import { wranglerScript } from './lib/paths.ts';
import type { TargetSpec } from './lib/spawn.ts';
import type { Entry, ThroughputTarget } from './target-shapes.ts';
import { LEGACY, LEGACY_SESSION, MODERN } from './target-shapes.ts';

const EDGE_DO: TargetSpec & { config: string } = {
  runtime: 'workerd',
  entry: 'workerd-edge-do.ts',
  config: 'wrangler-edge-do.jsonc',
} as const;
const agents = (mode: 'agent' | 'stateless', env: Record<string, string> = {}) =>
  ({
    runtime: 'workerd',
    entry: 'workerd-agents.ts',
    config: 'wrangler-agents.jsonc',
    env: { ...env, MODE: mode },
  }) as const;

/**
 * The variable that makes the entries count Durable Object storage (a proxy on the object's
 * storage): set by the storage measure's targets only, so every throughput run, McpAgent's
 * included, runs un-instrumented (bench/test/cloudflare-report.test.ts checks it).
 */
export const COUNT_STORAGE = { COUNT_STORAGE: '1' } as const;

export function unavailableWrangler(): string | undefined {
  try {
    wranglerScript();
    return undefined;
  } catch (error) {
    return `wrangler not found (apps/worker's devDependency): ${error instanceof Error ? error.message : error}`;
  }
}

/** What every workerd target shares: `wrangler dev` or `wrangler deploy` runs it. */
export const WORKERD = { runtime: 'workerd', unavailable: unavailableWrangler } as const;

/** Appended to THROUGHPUT_TARGETS, after workerd's bare Worker (their baseline). */
export const CLOUDFLARE_THROUGHPUT_TARGETS: ThroughputTarget[] = [
  {
    id: 'workerd/bare-do',
    label: 'bare Worker → bare Durable Object (wrangler dev)',
    ...WORKERD,
    library: 'bare',
    spec: { ...EDGE_DO, entry: 'workerd-bare-do.ts' },
    ...MODERN,
    baseline: 'workerd/bare',
  },
  {
    id: 'workerd/agents/legacy-session',
    label: 'agents McpAgent, one session in a Durable Object (wrangler dev)',
    ...WORKERD,
    library: 'agents',
    spec: agents('agent'),
    ...LEGACY_SESSION,
    baseline: 'workerd/bare-do',
  },
  {
    id: 'workerd/agents/stateless',
    label: 'agents createMcpHandler modern, stateless (wrangler dev)',
    ...WORKERD,
    library: 'agents',
    spec: agents('stateless'),
    ...MODERN,
    baseline: 'workerd/bare',
  },
];

/**
 * Durable Object storage operations per 1,000 legacy `tools/call`s on one session in steady
 * state, counted through the storage API by the entry (src/entries/storage-counter.ts).
 */
export interface StorageTarget extends Omit<Entry, 'goals' | 'baseline'> {
  version: string;
  /** At most this many storage writes per 1,000 calls, judged on the worst round. */
  maxWritesPer1k?: number;
  goalLabel?: string;
}

export const STORAGE_TARGETS: StorageTarget[] = [
  {
    id: 'workerd/edge-mcp/storage',
    label: 'edge-mcp session object',
    ...WORKERD,
    library: 'edge-mcp',
    spec: { ...EDGE_DO, env: COUNT_STORAGE },
    version: LEGACY,
    maxWritesPer1k: 10,
    goalLabel: 'workerd: Durable Object storage writes per 1,000 legacy calls, steady state',
  },
  {
    id: 'workerd/agents/storage',
    label: 'agents McpAgent object',
    ...WORKERD,
    library: 'agents',
    spec: agents('agent', COUNT_STORAGE),
    version: LEGACY,
  },
];

/**
 * What `wrangler deploy --dry-run --outdir` writes for a Worker a user deploys (src/deploy): its
 * modules without source maps, raw and gzipped.
 */
export interface BundleTarget extends Omit<Entry, 'goals' | 'baseline' | 'spec'> {
  /** File in src/deploy. */
  entry: string;
  /** Its wrangler config in bench/ (the bindings its exports need). */
  config: string;
  /** A goal on the ratio of its gzipped size to another bundle's, per round. */
  goal?: { against: string; max: number; label: string };
}

export const BUNDLE_TARGETS: BundleTarget[] = [
  {
    id: 'workerd/edge-mcp/bundle',
    label: 'edge-mcp session Worker + object, JSON Schema tools (no zod)',
    ...WORKERD,
    library: 'edge-mcp',
    entry: 'edge-worker.ts',
    config: EDGE_DO.config,
    goal: {
      against: 'workerd/agents/bundle',
      max: 0.25,
      label: 'workerd: deployed bundle (gzip) vs agents McpAgent',
    },
  },
  {
    id: 'workerd/agents/bundle',
    label: 'agents McpAgent Worker (SDK v1: zod comes with it)',
    ...WORKERD,
    library: 'agents',
    entry: 'agents-worker.ts',
    config: 'wrangler-agents.jsonc',
  },
];
