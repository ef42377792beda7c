/**
 * What a throughput target may add to the plain echo load: its own load loop (a driver, for a
 * scenario of several requests per iteration, such as a task's create + poll + result), and
 * figures per answered call (e.g. Redis round trips), read from counters the target exposes on
 * its side channel (`/stats` → `counters`) before and after the measured run, or reported by the
 * driver itself.
 */
import { sleep } from '@edge-mcp/test-kit';
import { getJson } from './http.ts';
import type { LoadResult } from './load.ts';
import type { RunningTarget } from './spawn.ts';

export interface DriverRun {
  /** How the server answered the checked iteration (`json`, `sse`). */
  answer: string;
  /**
   * `duration` seconds over `connections` concurrent loops; `ok` counts whole iterations, `rps`
   * iterations per second. `perCall`: the driver's own figures per iteration.
   */
  load(options: { duration: number; connections: number }): Promise<DriverResult>;
}

export type DriverResult = LoadResult & { perCall?: Record<string, number> };

export interface LoadDriver {
  /** Prepares the run on a started target (a session…) and checks one iteration. */
  start(server: RunningTarget): Promise<DriverRun>;
}

/** A figure per answered call, shown with the target and kept in the JSON. */
export interface PerCallFigure {
  /** Its key in the sample's `perCall`, and in the side channel's `counters` when read there. */
  name: string;
  label: string;
  /** A goal: at most this many per call, judged on the worst round. */
  max?: number;
  /**
   * The side channel's counter of the requests the server handled, to divide by instead of the
   * calls the load generator saw answered (which leaves out the calls still in flight when it
   * stopped: up to one per connection, each with its Redis round trip already counted).
   */
  per?: string;
}

/**
 * The side channel's counters (numbers only); empty without a side channel or counters.
 * `settleMs`: wait first, so the calls the load generator left in flight have ended.
 */
export async function readCounters(
  server: RunningTarget,
  settleMs = 0,
): Promise<Record<string, number>> {
  if (!server.sideUrl) return {};
  if (settleMs > 0) await sleep(settleMs);
  const stats = await getJson<{ counters?: Record<string, number> } | null>(
    `${server.sideUrl}/stats`,
  );
  return stats?.counters ?? {};
}

/** Counter deltas divided by the calls answered, for the figures the target declares. */
export function perCallOf(
  figures: readonly PerCallFigure[],
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
  own: Record<string, number> = {},
): Record<string, number> {
  const out: Record<string, number> = {};
  const delta = (name: string) =>
    name in after && name in before ? after[name]! - before[name]! : undefined;
  for (const { name, per } of figures) {
    const count = delta(name);
    const by = per === undefined ? calls : delta(per);
    if (name in own) out[name] = own[name]!;
    else if (count !== undefined && by !== undefined && by > 0) out[name] = count / by;
  }
  return out;
}
