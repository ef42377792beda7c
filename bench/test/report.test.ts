import { describe, expect, test } from 'vitest';
import { roundMedians, spread } from '../src/lib/stats.ts';
import type { FairnessRow, PhaseSpread } from '../src/measures/fairness.ts';
import type { StartupRow } from '../src/measures/startup.ts';
import type { ThroughputRow, ThroughputSample } from '../src/measures/throughput.ts';
import { goal } from '../src/report/goal.ts';
import { judge, renderTables } from '../src/report/sections.ts';
import type { Report, Results } from '../src/report/types.ts';

function throughputRow(id: string, baseline: string | null, rps: number[]): ThroughputRow {
  const samples: ThroughputSample[] = rps.map((value, round) => ({
    round,
    position: 0,
    load1: 0.2,
    rps: value,
    p50Ms: 1,
    p99Ms: 4,
    ok: value * 5,
    failed: 0,
    statuses: { 200: value * 5 },
    cpuUsPerRequest: 20,
    rssMiB: 100,
    answer: 'json',
  }));
  return {
    id,
    label: id,
    runtime: id.split('/')[0]!,
    library: baseline ? 'edge-mcp' : 'bare',
    era: 'modern',
    session: false,
    baseline,
    answer: 'json',
    samples,
    rps: spread(rps),
    ratio: null,
    cpuRatio: null,
    p50Ms: spread(rps.map(() => 1)),
    p99Ms: spread(rps.map(() => 4)),
    cpuUsPerRequest: spread(rps.map(() => 20)),
    rssMiB: spread(rps.map(() => 100)),
    failed: 0,
    errors: [],
  };
}

function startupRow(id: string, baseline: string | null, perRound: number[][]): StartupRow {
  const samples = perRound.flatMap((values, round) =>
    values.map((ms) => ({ round, load1: 0.2, ms, attempts: 3, cpuMs: ms / 2 })),
  );
  return {
    id,
    label: id,
    runtime: 'node',
    library: baseline ? 'edge-mcp' : 'bare',
    baseline,
    bundleBytes: 1000,
    samples,
    ms: spread(samples.map((s) => s.ms)),
    cpuMs: spread(samples.map((s) => s.cpuMs)),
    roundMs: null,
    ratio: null,
    errors: [],
  };
}

const empty: Results = { throughput: [], startup: [], sessions: [], disconnect: [], shutdown: [] };

describe('verdicts on the worst round', () => {
  test('a ratio goal met in the median but not in one round counts as missed', () => {
    const results: Results = {
      ...empty,
      throughput: [
        throughputRow('node/bare', null, [100, 100, 100]),
        // 0.95, 0.85, 0.92 of the bare handler, round by round.
        throughputRow('node/edge-mcp/modern', 'node/bare', [95, 85, 92]),
      ],
    };
    const [node] = judge(results);
    expect(node!.label).toBe('Node: modern tools/call vs bare node:http');
    expect(node!.value?.median).toBeCloseTo(0.92);
    expect(node!.value?.min).toBeCloseTo(0.85);
    expect(node!.value?.max).toBeCloseTo(0.95);
    expect(node!.worst).toBeCloseTo(0.85);
    expect(node!.medianMet).toBe(true);
    expect(node!.met).toBe(false);
  });

  test('ratios are paired per round: a slow round of the baseline does not flatter another round', () => {
    const results: Results = {
      ...empty,
      throughput: [
        throughputRow('node/bare', null, [100, 50, 100]),
        throughputRow('node/edge-mcp/modern', 'node/bare', [91, 46, 95]),
      ],
    };
    const [node] = judge(results);
    expect(node!.value?.values.map((v) => Number(v.toFixed(2)))).toEqual([0.91, 0.92, 0.95]);
    expect(node!.met).toBe(true);
  });

  test('an at-most goal is judged on its highest round; start-up rounds are medians of their starts', () => {
    const bare = startupRow('node/bare', null, [
      [40, 42, 41],
      [44, 40, 80],
    ]);
    const edge = startupRow('node/edge-mcp', 'node/bare', [
      [55, 60, 58],
      [70, 66, 65],
    ]);
    expect([...roundMedians(edge.samples, (s) => s.ms)]).toEqual([
      [0, 58],
      [1, 66],
    ]);
    const [startup] = judge({ ...empty, startup: [bare, edge] });
    expect(startup!.comparison).toBe('<=');
    expect(startup!.worst).toBeCloseTo(66 / 44);
    expect(startup!.met).toBe(true);
    const slow = startupRow('node/edge-mcp', 'node/bare', [
      [55, 60, 58],
      [70, 70, 69],
    ]);
    expect(judge({ ...empty, startup: [bare, slow] })[0]!.met).toBe(false);
  });

  test('a failed round makes the goal missed; a target not measured leaves it open', () => {
    const failed = throughputRow('node/edge-mcp/modern', 'node/bare', [95, 96]);
    failed.errors = ['round 3: did not start'];
    const [node] = judge({
      ...empty,
      throughput: [throughputRow('node/bare', null, [100, 100]), failed],
    });
    expect(node!.met).toBe(false);
    expect(node!.detail).toContain('failed');
    const [alone] = judge({
      ...empty,
      throughput: [throughputRow('node/edge-mcp/modern', 'node/bare', [95])],
    });
    expect(alone!.met).toBeNull();
    expect(goal('x', 'ms', '<=', 10, null, '').met).toBeNull();
  });
});

function fairnessRow(ratios: number[], victimErrors = 0): FairnessRow {
  const phase = (p99: number[]): PhaseSpread => ({
    calls: 1000 * p99.length,
    errors: 0,
    p50Ms: spread(p99.map(() => 0.9)),
    p99Ms: spread(p99),
    maxLagMs: spread(p99.map(() => 1)),
    serverCpuUsPerRequest: spread(p99.map(() => 100)),
    floodCores: null,
  });
  return {
    id: 'node/edge-mcp',
    limit: { perSecond: 200, burst: 200 },
    victimRate: 100,
    attackerRate: 2000,
    segmentSeconds: 5,
    samples: [],
    phases: {
      alone: phase(ratios.map(() => 2)),
      attack: phase(ratios.map((r) => 2 * r)),
      control: phase(ratios.map(() => 2)),
    },
    ratio: spread(ratios),
    controlRatio: spread(ratios.map(() => 1)),
    victimErrors,
    attackerStatuses: { 200: 6000, 429: 54000 },
    errors: [],
  };
}

describe('the fairness goal', () => {
  const label = 'Node: victim p99 while another principal sends 10× its rate limit, vs alone';
  const judged = (row: FairnessRow) =>
    judge({ ...empty, fairness: [row] }).find((g) => g.label === label);

  test('is judged on the round with the highest p99 ratio', () => {
    const fair = judged(fairnessRow([1.02, 1.08, 1.05]));
    expect(fair?.comparison).toBe('<=');
    expect(fair?.worst).toBeCloseTo(1.08);
    expect(fair?.met).toBe(true);
    const unfair = judged(fairnessRow([1.02, 1.15, 1.05]));
    expect(unfair?.met).toBe(false);
    expect(unfair?.medianMet).toBe(true);
  });

  test('a refused victim call fails it, whatever the latencies', () => {
    const refused = judged(fairnessRow([1.0, 1.0], 3));
    expect(refused?.met).toBe(false);
    expect(refused?.detail).toContain('3 victim calls not answered 200');
  });

  test('a run without the measure has no such goal', () => {
    expect(judge(empty).some((g) => g.label === label)).toBe(false);
  });
});

describe('the report', () => {
  const report: Report = {
    date: '2026-12-01T00:00:00.000Z',
    machine: { os: 'Linux', cpuModel: 'cpu', cpuCount: 2, memoryGiB: 8 },
    versions: {
      node: 'v20',
      deno: '2.9.6',
      bun: '1.4.4',
      wrangler: '4.86.0',
      packages: {},
      git: 'abc',
      gitDirty: false,
    },
    config: { partial: true, rounds: 3, duration: 5, warmup: 2 },
    load: { start: [1.5, 1, 1], end: [0.5, 1, 1], noisy: true },
    results: {
      ...empty,
      throughput: [
        throughputRow('node/bare', null, [100, 100, 100]),
        throughputRow('node/edge-mcp/modern', 'node/bare', [95, 85, 92]),
      ],
    },
    goals: [],
  };
  report.results.throughput[1]!.ratio = spread([0.95, 0.85, 0.92]);
  report.goals = judge(report.results);

  test('tables give the median with the min–max of the rounds, the load and the verdict', () => {
    const tables = renderTables(report);
    expect(tables).toContain('0.92× (0.85–0.95)');
    expect(tables).toContain('92 (85–95)');
    expect(tables).toContain('load average (1/5/15 min) 1.50 / 1.00 / 1.00');
    expect(tables).toContain('the figures are noisy');
    expect(tables).toMatch(/\| NO \(median yes\) \|/);
  });
});
