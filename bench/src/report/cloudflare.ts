/**
 * The Cloudflare measure in the report: its goals (storage writes per 1,000 calls at most,
 * bundle ratio at most, judged on the worst round like every other), its tables and its panel of
 * the chart. Called from goals.ts, table.ts and svg.ts.
 */
import { pairedRatios } from '../lib/stats.ts';
import type { CloudflareResults, StorageRow } from '../measures/cloudflare.ts';
import { BUNDLE_TARGETS, STORAGE_TARGETS } from '../targets-cloudflare.ts';
import { n, s, table } from './format.ts';
import { type Goal, goal } from './goal.ts';
import { BAR_W, COLORS, LABEL_W, ROW_H, rangeBar, text } from './svg-parts.ts';

const failed = (...rows: ({ errors: string[] } | undefined)[]) => {
  const count = rows.reduce((sum, row) => sum + (row?.errors.length ?? 0), 0);
  return count > 0 ? `${count} round(s) failed` : undefined;
};

export function cloudflareGoals(results: CloudflareResults | undefined): Goal[] {
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

const problem = (row: { errors: string[]; skipped?: string }) =>
  row.skipped
    ? `skipped: ${row.skipped.slice(0, 60)}`
    : row.errors.length > 0
      ? `${row.errors.length} round(s) failed: ${row.errors[0]!.slice(0, 60)}`
      : '';

export function cloudflareTables(results: CloudflareResults | undefined): string[] {
  if (!results) return [];
  const parts: string[] = [];
  if (results.storage.length > 0) {
    parts.push(
      '**Durable Object storage per 1,000 legacy `tools/call`s** (one session, steady state after a warm-up; counted through the storage API in the object; rows = the SQL cursors\u2019 own counts; open = `initialize` + `notifications/initialized`)',
      table(
        [
          'target',
          'calls',
          'reads',
          'writes',
          'rows read',
          'rows written',
          'open: reads / writes',
          'by method (last round)',
        ],
        results.storage.map((r) => {
          const last = r.samples.at(-1);
          if (!last) return [r.label, 'error', problem(r), '', '', '', '', ''];
          return [
            r.label,
            n(last.calls),
            s(r.readsPer1k, 1),
            s(r.writesPer1k, 1),
            s(r.rowsReadPer1k, 1),
            s(r.rowsWrittenPer1k, 1),
            `${last.open.reads} / ${last.open.writes}`,
            Object.entries(last.methods)
              .map(([name, count]) => `${name} ${n((count * 1000) / last.calls)}`)
              .join(', ') || 'none',
          ];
        }),
        [1, 2, 3, 4, 5, 6],
      ),
    );
  }
  if (results.bundles.length > 0) {
    parts.push(
      '**The bundle a user deploys** (`wrangler deploy --dry-run --outdir`: the modules it would upload, no source maps, not minified (wrangler\u2019s default); gzip: node:zlib; zod: its bytes in the bundle, from the esbuild metafile)',
      table(
        ['bundle', 'KiB', 'gzip KiB', 'of which zod KiB'],
        results.bundles.map((r) =>
          r.rawKiB
            ? [r.label, s(r.rawKiB, 1), s(r.gzipKiB, 1), n(r.schemaKiB?.median, 1)]
            : [r.label, problem(r), '', ''],
        ),
        [1, 2, 3],
      ),
    );
  }
  return parts;
}

/** The chart's panel: storage operations per 1,000 calls, and the deployed bundles (gzip KiB). */
export function cloudflarePanel(
  results: CloudflareResults | undefined,
  top: number,
): { svg: string; height: number } {
  const storage = (results?.storage ?? []).filter((r) => r.readsPer1k && r.writesPer1k);
  const bundles = (results?.bundles ?? []).filter((r) => r.gzipKiB);
  if (storage.length === 0 && bundles.length === 0) return { svg: '', height: 0 };
  const out: string[] = [
    text(
      10,
      top + 16,
      'Cloudflare: Durable Object storage operations per 1,000 legacy calls, and the deployed bundle (gzip KiB); bar: median, whisker: min–max',
      'class="title"',
    ),
  ];
  let y = top + 30;
  const bars = (
    rows: {
      label: string;
      library: string;
      value: NonNullable<StorageRow['readsPer1k']>;
      detail: string;
    }[],
  ) => {
    const max = Math.max(1, ...rows.map((r) => r.value.max));
    const x = (v: number) => LABEL_W + (v / max) * BAR_W;
    for (const row of rows) {
      out.push(text(LABEL_W - 8, y + 15, row.label, 'text-anchor="end"'));
      const v = row.value;
      out.push(
        rangeBar(LABEL_W, y, x(v.median), x(v.min), x(v.max), COLORS[row.library] ?? '#666', v.n),
      );
      out.push(text(x(v.max) + 8, y + 15, row.detail, 'class="small"'));
      y += ROW_H;
    }
  };
  bars(
    storage.flatMap((r) => [
      {
        label: `${r.label} · reads`,
        library: r.library,
        value: r.readsPer1k!,
        detail: `${s(r.readsPer1k, 1)} reads / 1,000 calls`,
      },
      {
        label: `${r.label} · writes`,
        library: r.library,
        value: r.writesPer1k!,
        detail: `${s(r.writesPer1k, 1)} writes / 1,000 calls`,
      },
    ]),
  );
  y += 6;
  bars(
    bundles.map((r) => ({
      label: r.label,
      library: r.library,
      value: r.gzipKiB!,
      detail: `${s(r.gzipKiB, 1)} KiB gzip · ${s(r.rawKiB, 1)} KiB raw`,
    })),
  );
  return { svg: out.join('\n'), height: y - top + 10 };
}
