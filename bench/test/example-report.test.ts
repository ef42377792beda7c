import { describe, expect, test } from 'vitest';
import { spread } from '../src/lib/stats.ts';
import type { CrossCancelRow } from '../src/measures/cross-cancel.ts';
import type { ProxySseRow } from '../src/measures/proxy-sse.ts';
import { crossCancelSection, proxySseSection } from '../src/report/example.ts';
import type { Report, Results } from '../src/report/types.ts';

const EMPTY: Results = { throughput: [], startup: [], sessions: [], disconnect: [], shutdown: [] };

function cancelRow(p99: number[], extra: Partial<CrossCancelRow> = {}): CrossCancelRow {
  const samples = p99.map((value, round) => ({
    round,
    position: 0,
    load1: 0.2,
    cancels: 200,
    failures: 0,
    p50Ms: 2,
    p99Ms: value,
    maxMs: value + 1,
    endP50Ms: 1.8,
    endP99Ms: value - 1,
  }));
  return {
    id: 'node/edge-mcp-example/redis-cross-instance',
    samples,
    cancels: 200,
    failures: 0,
    p50Ms: spread(samples.map((s) => s.p50Ms)),
    p99Ms: spread(p99),
    maxMs: spread(samples.map((s) => s.maxMs)),
    endP50Ms: spread(samples.map((s) => s.endP50Ms)),
    endP99Ms: spread(samples.map((s) => s.endP99Ms)),
    errors: [],
    ...extra,
  };
}

describe('the cross-instance cancel goal', () => {
  test('is judged on the round with the highest p99', () => {
    const [goal] = crossCancelSection.goals({ ...EMPTY, crossCancel: [cancelRow([8, 60, 9])] });
    expect(goal?.value?.median).toBe(9);
    expect(goal?.worst).toBe(60);
    expect(goal?.met).toBe(false);
    expect(goal?.medianMet).toBe(true);
  });

  test('a failed cancel fails it; a skipped target leaves it not measured', () => {
    const failed = cancelRow([8], { failures: 1 });
    expect(crossCancelSection.goals({ ...EMPTY, crossCancel: [failed] })[0]?.met).toBe(false);
    const skipped = cancelRow([], { skipped: 'no redis-server' });
    expect(crossCancelSection.goals({ ...EMPTY, crossCancel: [skipped] })[0]?.met).toBeNull();
    expect(crossCancelSection.goals(EMPTY)).toEqual([]);
  });
});

test('the proxy table gives each path its added latency against direct', () => {
  const row = (id: string, first: number, added: number | null): ProxySseRow => ({
    id,
    label: id,
    baseline: added === null ? null : 'direct',
    samples: [],
    events: 30,
    failures: 0,
    firstP50Ms: spread([first]),
    firstP99Ms: spread([first + 5]),
    answerP50Ms: spread([1.5]),
    answerP99Ms: spread([3]),
    added:
      added === null
        ? null
        : {
            firstP50Ms: spread([added]),
            firstP99Ms: spread([added]),
            answerP50Ms: spread([-0.25]),
            answerP99Ms: spread([0]),
          },
    errors: [],
  });
  const results = { ...EMPTY, proxySse: [row('direct', 2, null), row('haproxy', 210, 208)] };
  const [title, table] = proxySseSection.tables({ results } as unknown as Report);
  expect(title).toContain('SSE event latency');
  expect(table).toContain('+208.00');
  expect(table).toContain('−0.25');
  expect(proxySseSection.tables({ results: EMPTY } as unknown as Report)).toEqual([]);
});
