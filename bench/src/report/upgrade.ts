/**
 * Results files written before the bench took rounds (one sample per target, no spread) read as
 * a run of one round, so `pnpm --filter @edge-mcp/bench render` still draws them.
 */
import { type Spread, spread } from '../lib/stats.ts';
import type { Results } from './goals.ts';
import type { Report } from './report.ts';

type Old = Record<string, any>;

const one = (value: unknown): Spread | null => (typeof value === 'number' ? spread([value]) : null);

/** Ids the first round used for targets that have moved. */
const RENAMED: Record<string, string> = {
  'node/edge-mcp-hono/modern': 'node/hono-plain/edge-mcp/modern',
  'node/edge-mcp-hono/legacy-session': 'node/hono-plain/edge-mcp/legacy-session',
};

export function isOldReport(report: Old): boolean {
  const first = report.results?.throughput?.[0];
  return (
    (first !== undefined && typeof first.rps === 'number') ||
    !Array.isArray(report.results?.shutdown)
  );
}

export function upgradeReport(old: Old): Report {
  if (!isOldReport(old)) return old as Report;
  const r = old.results as Old;
  const sample = { round: 0, position: 0, load1: Number.NaN };
  const results: Results = {
    throughput: (r.throughput ?? []).map((row: Old) => {
      const bare = (r.throughput as Old[]).find(
        (b) => b.runtime === row.runtime && b.library === 'bare',
      );
      const id = RENAMED[row.id] ?? row.id;
      return {
        id,
        label: row.label,
        runtime: row.runtime,
        library: row.library,
        era: row.era,
        session: row.session,
        baseline: row.library === 'bare' ? null : (bare?.id ?? null),
        answer: row.answer,
        samples: row.error
          ? []
          : [
              {
                ...sample,
                rps: row.rps,
                p50Ms: row.p50Ms,
                p99Ms: row.p99Ms,
                ok: row.ok,
                failed: row.failed,
                statuses: row.statuses,
                cpuUsPerRequest: null,
                rssMiB: row.rssMiB,
                answer: row.answer,
              },
            ],
        rps: row.error ? null : one(row.rps),
        ratio: row.library === 'bare' || row.error ? null : one(row.ratioToBare),
        p50Ms: one(row.p50Ms),
        p99Ms: one(row.p99Ms),
        cpuUsPerRequest: null,
        rssMiB: one(row.rssMiB),
        failed: row.failed ?? 0,
        errors: row.error ? [row.error] : [],
      };
    }),
    startup: [],
    sessions: (r.sessions ?? []).map((row: Old) => {
      const bare = (r.sessions as Old[]).find((b) => b.id === 'node/bare-initialize');
      return {
        id: row.id,
        label: row.label,
        library: row.id.split('/')[1] === 'bare-initialize' ? 'bare' : row.id.split('/')[1],
        baseline: row.id === 'node/bare-initialize' ? null : 'node/bare-initialize',
        samples: [{ ...sample, ...row }],
        sessions: row.sessions,
        initPerS: one(row.initPerS),
        ratio: bare && row !== bare ? one(row.initPerS / bare.initPerS) : null,
        p99Ms: one(row.p99Ms),
        heapBytesPerSession: one(row.heapBytesPerSession),
        rssBytesPerSession: one(row.rssBytesPerSession),
        warmUpRssBytesPerSession: one(row.warmUpRssBytesPerSession),
        rssAfterMiB: one(row.rssAfterMiB),
        failed: row.failed ?? 0,
        errors: row.error ? [row.error] : [],
      };
    }),
    disconnect: (r.disconnect ?? []).map((row: Old) => ({
      id: `${row.runtime}/edge-mcp`,
      runtime: row.runtime,
      samples: [{ ...sample, ...row }],
      drops: row.drops,
      failures: row.failures,
      p50Ms: one(row.p50Ms),
      p99Ms: one(row.p99Ms),
      maxMs: one(row.maxMs),
      errors: [],
    })),
    shutdown: r.shutdown
      ? [
          {
            id: 'node/edge-mcp',
            samples: [{ ...sample, ...r.shutdown }],
            sessions: r.shutdown.sessions,
            inFlight: r.shutdown.inFlight,
            exitMs: one(r.shutdown.exitMs),
            exitCodes: [r.shutdown.exitCode],
            callOutcomes: r.shutdown.callOutcomes,
            errors: [],
          },
        ]
      : [],
  };
  return {
    ...(old as Report),
    config: { ...old.config, rounds: 1 },
    results,
    goals: [],
  };
}
