import { describe, expect, test } from 'vitest';
import { spread } from '../src/lib/stats.ts';
import type {
  BundleRow,
  CloudflareResults,
  StorageRow,
  StorageSample,
} from '../src/measures/cloudflare.ts';
import { cloudflareSection } from '../src/report/cloudflare.ts';
import type { Report, Results } from '../src/report/types.ts';

const none: Results = { throughput: [], startup: [], sessions: [], disconnect: [], shutdown: [] };
const cloudflareGoals = (cloudflare: CloudflareResults | undefined) =>
  cloudflareSection.goals({ ...none, cloudflare });
const cloudflareTables = (cloudflare: CloudflareResults | undefined) =>
  cloudflareSection.tables({ results: { ...none, cloudflare } } as Report);

function storageRow(id: string, writes: number[]): StorageRow {
  const samples: StorageSample[] = writes.map((w, round) => ({
    round,
    position: 0,
    load1: 0.2,
    calls: 2000,
    readsPer1k: 1,
    writesPer1k: w,
    rowsReadPer1k: 0,
    rowsWrittenPer1k: w,
    open: { reads: 1, writes: 4 },
    methods: (w > 0 ? { 'kv.put': (w * 2000) / 1000 } : {}) as Record<string, number>,
  }));
  return {
    id,
    label: id,
    library: id.includes('agents') ? 'agents' : 'edge-mcp',
    samples,
    readsPer1k: spread(samples.map((s) => s.readsPer1k)),
    writesPer1k: spread(writes),
    rowsReadPer1k: spread(samples.map(() => 0)),
    rowsWrittenPer1k: spread(writes),
    errors: [],
  };
}

function bundleRow(id: string, gzip: number[]): BundleRow {
  const samples = gzip.map((g, round) => ({
    round,
    position: 0,
    load1: 0.2,
    rawBytes: g * 4,
    gzipBytes: g,
    schemaBytes: id.includes('agents') ? g : 0,
    files: ['index.js'],
  }));
  return {
    id,
    label: id,
    library: id.includes('agents') ? 'agents' : 'edge-mcp',
    samples,
    rawKiB: spread(gzip.map((g) => (g * 4) / 1024)),
    gzipKiB: spread(gzip.map((g) => g / 1024)),
    schemaKiB: spread(gzip.map((g) => (id.includes('agents') ? g / 1024 : 0))),
    errors: [],
  };
}

const results = (writes: number[], ours: number[]): CloudflareResults => ({
  storage: [
    storageRow('workerd/edge-mcp/storage', writes),
    storageRow('workerd/agents/storage', [2000, 2000, 2000]),
  ],
  bundles: [
    bundleRow('workerd/edge-mcp/bundle', ours),
    bundleRow('workerd/agents/bundle', [600_000, 600_000, 600_000]),
  ],
});

describe('the Cloudflare goals', () => {
  test('storage writes are judged on the worst round', () => {
    const [storage] = cloudflareGoals(results([0, 5, 12], [60_000, 60_000, 60_000]));
    expect(storage?.unit).toBe('per 1,000 calls');
    expect(storage?.worst).toBe(12);
    expect(storage?.met).toBe(false);
    expect(storage?.medianMet).toBe(true);
  });

  test('the bundle ratio is taken per round against the other bundle', () => {
    const goals = cloudflareGoals(results([0, 0, 0], [60_000, 120_000, 200_000]));
    const bundle = goals.find((g) => g.label.includes('bundle'));
    expect(bundle?.value?.values).toEqual([0.1, 0.2, 200_000 / 600_000]);
    expect(bundle?.met).toBe(false);
    expect(bundle?.detail).toContain('zod');
  });

  test('nothing measured, no goals or tables', () => {
    expect(cloudflareGoals(undefined)).toEqual([]);
    expect(cloudflareTables(undefined)).toEqual([]);
  });

  test('tables carry every row', () => {
    const r = results([0, 0, 0], [60_000, 60_000, 60_000]);
    const tables = cloudflareTables(r).join('\n');
    expect(tables).toContain('workerd/agents/storage');
    expect(tables).toContain('kv.put 2,000');
    expect(tables).toContain('workerd/edge-mcp/bundle');
    expect(tables).toContain('workerd/agents/bundle');
  });
});
