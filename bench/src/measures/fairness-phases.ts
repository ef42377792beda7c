/**
 * What the fairness measure records per segment, and how a phase's segments add up to its
 * figures. The runner is src/measures/fairness.ts; this file imports nothing from it, so the
 * two do not import each other.
 */
import { percentile } from '../lib/stats.ts';
import { add } from './measure.ts';

export type PhaseName = 'alone' | 'attack' | 'control';

/** The victim's calls of one phase (its two segments) in one round. */
export interface FairnessPhase {
  calls: number;
  /** Victim calls not answered 200 with the echo (429s included): 0 when the limit is fair. */
  errors: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The victim's latest send against its schedule (its own event loop's lateness). */
  maxLagMs: number;
  /** The edge-mcp server's CPU time (every thread, schedstat) per request it answered. */
  serverCpuUsPerRequest: number | null;
  /** The flood's requests and answers by status (attack and control phases). */
  flood?: { sent: number; statuses: Record<string, number> };
  /** Cores the flood's client process used while it ran (attack and control phases). */
  floodCores?: number | null;
}

/** What one segment of a phase saw: the victim's calls, the server's CPU and the flood. */
export interface Segment {
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  maxLagMs: number;
  serverCpuMs: number | null;
  serverRequests: number;
  flood?: { sent: number; statuses: Record<string, number>; cpuMs: number | null };
  wallMs: number;
}

/** Sums up a phase's segments: percentiles over all their calls, CPU over all their requests. */
export function phaseOf(segments: Segment[]): FairnessPhase {
  const latencies = segments.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const total = (pick: (s: Segment) => number | null | undefined) =>
    segments.every((s) => typeof pick(s) === 'number')
      ? segments.reduce((sum, s) => sum + pick(s)!, 0)
      : null;
  const cpuMs = total((s) => s.serverCpuMs);
  const requests = total((s) => s.serverRequests) ?? 0;
  const flooded = segments.flatMap((s) => (s.flood ? [s.flood] : []));
  const floodCpuMs = total((s) => s.flood?.cpuMs);
  return {
    calls: latencies.length,
    errors: segments.reduce((sum, s) => sum + s.errors, 0),
    statuses: segments.reduce((all, s) => add(all, s.statuses), {}),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    maxLagMs: Math.max(...segments.map((s) => s.maxLagMs)),
    serverCpuUsPerRequest: cpuMs !== null && requests > 0 ? (cpuMs * 1000) / requests : null,
    ...(flooded.length > 0
      ? {
          flood: {
            sent: flooded.reduce((sum, f) => sum + f.sent, 0),
            statuses: flooded.reduce((all, f) => add(all, f.statuses), {}),
          },
          floodCores: floodCpuMs === null ? null : floodCpuMs / total((s) => s.wallMs)!,
        }
      : {}),
  };
}
