import { describe, expect, test } from 'vitest';
import { selection } from '../src/config.ts';
import { plan, rotation, runRounds } from '../src/lib/rounds.ts';
import type { Spread } from '../src/lib/stats.ts';
import { measureRows, ratiosToBaselines } from '../src/measures/measure.ts';
import { THROUGHPUT_TARGETS } from '../src/targets.ts';

describe('interleaved rounds', () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f'];

  test('every round holds every target once; the order turns from round to round', () => {
    const rounds = plan(items, 3);
    expect(rounds).toEqual([
      ['a', 'b', 'c', 'd', 'e', 'f'],
      ['c', 'd', 'e', 'f', 'a', 'b'],
      ['e', 'f', 'a', 'b', 'c', 'd'],
    ]);
    for (const order of rounds) expect([...order].sort()).toEqual(items);
    // No target starts two rounds.
    expect(new Set(rounds.map((order) => order[0])).size).toBe(3);
  });

  test('more rounds than targets still turn by one', () => {
    expect(plan(['x', 'y'], 4).map((order) => order.join(''))).toEqual(['xy', 'yx', 'xy', 'yx']);
    expect(rotation([], 1, 3)).toEqual([]);
  });

  test('runRounds measures in the planned order and records a failed round, then goes on', async () => {
    const calls: string[] = [];
    const results = await runRounds(['a', 'b'], 2, async (item, round, position) => {
      calls.push(`${round}:${position}:${item}`);
      if (item === 'b' && round === 0) throw new Error('did not start');
      return `${item}${round}`;
    });
    expect(calls).toEqual(['0:0:a', '0:1:b', '1:0:b', '1:1:a']);
    expect(results.get('a')).toEqual([
      { round: 0, position: 0, result: 'a0' },
      { round: 1, position: 1, result: 'a1' },
    ]);
    expect(results.get('b')).toEqual([
      { round: 0, position: 1, error: 'did not start' },
      { round: 1, position: 0, result: 'b1' },
    ]);
  });
});

describe('goal pairs measured side by side', () => {
  const base = { id: 'base' };
  const near = { id: 'near' };
  const far = { id: 'far' };
  const other = { id: 'other' };
  const partnerOf = (t: { id: string }) => (t === near || t === far ? base : undefined);

  async function run(freshMs: number) {
    const calls: string[] = [];
    // The machine slows down as the run goes on: each partner sample finds it slower, and a
    // target measured right after one runs at half its speed.
    let speed = 100;
    const rows = await measureRows([base, near, other, far], 2, () => {}, {
      pairing: { partnerOf, freshMs },
      name: (t) => t.id,
      once: async (t, round) => {
        calls.push(`${round}:${t.id}`);
        if (t === base) speed -= 10;
        return { value: t === base ? speed : speed / 2 };
      },
      describe: () => '',
      row: (t) => ({ baseline: partnerOf(t)?.id ?? null, ratio: null as Spread | null }),
    });
    return { calls, rows: ratiosToBaselines(rows, (s) => s.value) };
  }

  test('a partner that is not fresh is measured again right before; the ratio is to that sample', async () => {
    const { calls, rows } = await run(Number.POSITIVE_INFINITY);
    // Round 1 turns the order (other, far, base, near): `far` comes before `base`.
    expect(calls).toEqual([
      '0:base',
      '0:near',
      '0:other',
      '0:far',
      '1:other',
      '1:base',
      '1:far',
      '1:base',
      '1:near',
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get('base')?.samples).toHaveLength(3);
    // Every ratio is to the sample taken just before: half, whatever the drift.
    expect(byId.get('near')?.ratio?.values).toEqual([0.5, 0.5]);
    expect(byId.get('far')?.ratio?.values).toEqual([0.5, 0.5]);
  });

  test('with a short freshness every paired target gets its own partner sample', async () => {
    const { calls, rows } = await run(-1);
    expect(calls.filter((c) => c.endsWith(':base'))).toHaveLength(6);
    for (const id of ['near', 'far'])
      expect(rows.find((r) => r.id === id)?.ratio?.values).toEqual([0.5, 0.5]);
  });
});

describe('the registry', () => {
  test('ids are unique and every baseline is a target of the same measure', () => {
    const ids = THROUGHPUT_TARGETS.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const target of THROUGHPUT_TARGETS) {
      if (target.baseline) expect(ids).toContain(target.baseline);
      for (const goal of target.goals ?? []) expect(ids).toContain(goal.against ?? target.baseline);
    }
  });

  test('a selected target brings its baseline, and the baseline its own', () => {
    const chosen = selection(THROUGHPUT_TARGETS, {
      targets: ['node/hono/edge-mcp/modern'],
      runtimes: undefined,
    });
    expect(chosen.map((t) => t.id)).toEqual([
      'node/bare',
      'node/hono/bare',
      'node/hono/edge-mcp/modern',
    ]);
    const bun = selection(THROUGHPUT_TARGETS, { targets: undefined, runtimes: ['bun'] });
    expect(bun.map((t) => t.id)).toEqual([
      'bun/bare',
      'bun/edge-mcp/modern',
      'bun/edge-mcp/legacy-session',
      'bun/readme/modern',
      'bun/readme/legacy-session',
      'bun/readme-log/modern',
    ]);
  });
});
