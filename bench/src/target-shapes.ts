/**
 * What the registry files (src/targets*.ts) build their entries from: the entries' shapes, the
 * protocol revisions, a Node target's spec, the call shapes, the runtimes' names and the goals.
 * Apart from src/targets.ts so those files need not import the registry that imports them.
 */
import type { LoadDriver, PerCallFigure } from './lib/driver.ts';
import type { Era } from './lib/mcp.ts';
import type { Runtime, TargetSpec } from './lib/spawn.ts';

export type Library = 'bare' | 'edge-mcp' | 'sdk-v2' | 'sdk-v1' | 'mcp-lite' | 'agents';

/**
 * A goal on the ratio of two targets measured in the same round (`this / against`), judged on
 * the worst round.
 */
export interface RatioGoal {
  /** The other target's id; by default the target's baseline. */
  against?: string;
  /**
   * What is compared: req/s (`rps`, the default), or the server's CPU time per answered call
   * (`cpu`), which still says something where the load client saturates before the server.
   */
  of?: 'rps' | 'cpu';
  comparison: '>=' | '<=';
  threshold: number;
  label: string;
}

/** What every registry entry has. */
export interface Entry {
  /** Unique within its measure; `runtime/library/…`. BENCH_TARGETS selects by parts of it. */
  id: string;
  label: string;
  runtime: Runtime;
  library: Library;
  spec: TargetSpec;
  /**
   * The ceiling the "× bare" column divides by, measured in the same round (the bare handler of
   * the runtime, or of the same framework); none for a ceiling itself. Always measured along
   * when this target is selected.
   */
  baseline?: string;
  goals?: RatioGoal[];
  /** Why it cannot run on this machine (a missing binary…); undefined when it can. */
  unavailable?: () => string | undefined;
}

/** `tools/call echo` under load. */
export interface ThroughputTarget extends Entry {
  era: Era;
  /** Legacy: initialize once and reuse the session id for every call. */
  session: boolean;
  /** Protocol revision of legacy calls. */
  version: string;
  /** Its own load loop instead of autocannon's echo call (src/lib/driver.ts). */
  driver?: LoadDriver;
  /** Figures per answered call (e.g. Redis round trips), with an optional at-most goal. */
  perCall?: PerCallFigure[];
}

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
