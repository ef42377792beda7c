/**
 * The Cloudflare measure in the report: its goals (storage writes per 1,000 calls at most,
 * bundle ratio at most, judged on the worst round like every other) and its tables.
 */
import { pairedRatios } from '../lib/stats.ts';
import type { CloudflareResults } from '../measures/cloudflare.ts';
import { BUNDLE_TARGETS, STORAGE_TARGETS } from '../targets-cloudflare.ts';
import { n, problem, s, titled } from './format.ts';
import { failed, goal } from './goal.ts';
import type { Goal, Section } from './types.ts';

function cloudflareGoals(results: CloudflareResults | undefined): Goal[] {
  if (!results) return [];
  const goals: Goal[] = [];
  for (const target of STORAGE_TARGETS) {
    const row = results.storage.find((r) => r.id === target.id);
    if (!row || row.skipped || target.maxWritesPer1k === undefined) continue;
    const reads = row.readsPer1k ? s(row.readsPer1k, 1) : 'n/a';
    goals.push(
      goal(
        target.goalLabel ?? `${target.label}: storage writes per 1,000 calls`,
        'per 1,000 calls',
        '<=',
        target.maxWritesPer1k,
        row.writesPer1k,
        `${target.id}: storage API writes over ${row.samples[0]?.calls ?? 'n/a'} calls per round after a warm-up; reads ${reads}`,
        failed(row),
      ),
    );
  }
  for (const target of BUNDLE_TARGETS) {
    const row = results.bundles.find((r) => r.id === target.id);
    const spec = target.goal;
    if (!row || row.skipped || !spec) continue;
    const against = results.bundles.find((r) => r.id === spec.against);
    const gzipByRound = (r: typeof row) => new Map(r.samples.map((x) => [x.round, x.gzipBytes]));
    const ratios = against ? pairedRatios(gzipByRound(row), gzipByRound(against)) : [];
    goals.push(
      goal(
        spec.label,
        '×',
        '<=',
        spec.max,
        ratios,
        against
          ? `gzip ${n(row.gzipKiB?.median, 1)} vs ${n(against.gzipKiB?.median, 1)} KiB (raw ${n(row.rawKiB?.median, 1)} vs ${n(against.rawKiB?.median, 1)} KiB; ${spec.against} carries ${n(against.schemaKiB?.median, 1)} KiB of zod)`
          : `${spec.against} not measured`,
        failed(row, against),
      ),
    );
  }
  return goals;
}

function cloudflareTables(results: CloudflareResults | undefined): string[] {
  return [
    ...titled(
      '**Durable Object storage per 1,000 legacy `tools/call`s** (one session, steady state after a warm-up; counted through the storage API in the object; rows = the SQL cursors\u2019 own counts; open = `initialize` + `notifications/initialized`)',
      results?.storage.map((row) => ({ row, last: row.samples.at(-1)! })),
      [
        ['target', ({ row }) => row.label],
        ['calls', ({ last }) => n(last.calls), true],
        ['reads', ({ row }) => s(row.readsPer1k, 1), true],
        ['writes', ({ row }) => s(row.writesPer1k, 1), true],
        ['rows read', ({ row }) => s(row.rowsReadPer1k, 1), true],
        ['rows written', ({ row }) => s(row.rowsWrittenPer1k, 1), true],
        ['open: reads / writes', ({ last }) => `${last.open.reads} / ${last.open.writes}`, true],
        [
          'by method (last round)',
          ({ last }) =>
            Object.entries(last.methods)
              .map(([name, count]) => `${name} ${n((count * 1000) / last.calls)}`)
              .join(', ') || 'none',
        ],
      ],
      ({ row, last }) => (last ? undefined : [row.label, 'error', problem(row)]),
    ),
    ...titled(
      '**The bundle a user deploys** (`wrangler deploy --dry-run --outdir`: the modules it would upload, no source maps, not minified (wrangler\u2019s default); gzip: node:zlib; zod: its bytes in the bundle, from the esbuild metafile)',
      results?.bundles,
      [
        ['bundle', (r) => r.label],
        ['KiB', (r) => s(r.rawKiB, 1), true],
        ['gzip KiB', (r) => s(r.gzipKiB, 1), true],
        ['of which zod KiB', (r) => n(r.schemaKiB?.median, 1), true],
      ],
      (r) => (r.rawKiB ? undefined : [r.label, problem(r)]),
    ),
  ];
}

export const cloudflareSection: Section = {
  goals: (results) => cloudflareGoals(results.cloudflare),
  tables: ({ results }) => cloudflareTables(results.cloudflare),
};
