/**
 * What the registry files (src/targets*.ts) build their entries from: the protocol revisions,
 * a Node target's spec, the call shapes and the runtimes' names. Apart from src/targets.ts so
 * those files need not import the registry that imports them.
 */
import type { TargetSpec } from './lib/spawn.ts';
import type { RatioGoal, ThroughputTarget } from './target-types.ts';

export const LEGACY = '2025-11-25';
/** mcp-lite 0.10 takes legacy revisions only, up to this one. */
export const LITE = '2025-06-18';

export const node = (
  entry: string,
  mode?: string,
  env: Record<string, string> = {},
): TargetSpec => ({
  runtime: 'node',
  entry,
  env: mode ? { ...env, MODE: mode } : env,
});

type Shape = Pick<ThroughputTarget, 'era' | 'session' | 'version'>;
export const MODERN: Shape = { era: 'modern', session: false, version: LEGACY };
export const LEGACY_SESSION: Shape = { era: 'legacy', session: true, version: LEGACY };
export const LEGACY_STATELESS: Shape = { era: 'legacy', session: false, version: LEGACY };

export const RUNTIME_NAME = { node: 'Node', deno: 'Deno', bun: 'Bun', workerd: 'workerd' } as const;

/** A goal on the ratio to `against` (by default the target's baseline), judged on the worst round. */
export const atLeast = (threshold: number, label: string, against?: string): RatioGoal[] => [
  { ...(against ? { against } : {}), comparison: '>=', threshold, label },
];
export const atMost = (threshold: number, label: string, against?: string): RatioGoal[] => [
  { ...(against ? { against } : {}), comparison: '<=', threshold, label },
];
/** A goal on the ratio of the server's CPU time per answered call, judged on the worst round. */
export const cpuAtMost = (threshold: number, label: string, against?: string): RatioGoal[] => [
  { ...(against ? { against } : {}), of: 'cpu', comparison: '<=', threshold, label },
];
