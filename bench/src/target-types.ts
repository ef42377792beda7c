/**
 * The shapes of the bench's registry entries, apart from the registry (src/targets.ts), so the
 * files that add entries to it (the other src/targets-*.ts) need not import it.
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
