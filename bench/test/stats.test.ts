import { describe, expect, test } from 'vitest';
import {
  median,
  pairedRatios,
  pairedSamples,
  percentile,
  spread,
  worst,
} from '../src/lib/stats.ts';

describe('statistics of the rounds', () => {
  test('median of an odd and an even count, unsorted input left alone', () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  test('spread: median, min, max and the values in round order, unknown rounds left out', () => {
    expect(spread([3, null, 1, Number.NaN, 2, undefined])).toEqual({
      median: 2,
      min: 1,
      max: 3,
      n: 3,
      values: [3, 1, 2],
    });
    expect(spread([])).toBeNull();
    expect(spread([null, Number.POSITIVE_INFINITY])).toBeNull();
  });

  test('percentile by nearest rank', () => {
    const sorted = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(100);
    expect(percentile(sorted, 99)).toBe(198);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  test('ratios pair the rounds both targets measured, never across rounds', () => {
    const target = new Map([
      [0, 90],
      [1, 80],
      [2, 100],
    ]);
    const baseline = new Map([
      [0, 100],
      [2, 100],
      [3, 50],
    ]);
    expect(pairedRatios(target, baseline)).toEqual([0.9, 1]);
    expect(pairedRatios(target, new Map([[0, 0]]))).toEqual([]);
  });

  test("paired samples: the partner's sample a target's names in a round, else the round's all", () => {
    const partner = [
      { round: 0, seq: 0, v: 10 },
      { round: 0, seq: 2, v: 20 },
      { round: 1, seq: 5, v: 30 },
      { round: 1, seq: 7, v: 40 },
      { round: 2, v: 50 },
    ];
    const mine = [{ partner: 2 }, { partner: undefined }, {}];
    expect(pairedSamples(mine, partner).map((s) => s.v)).toEqual([20, 30, 40, 50]);
    // None named (older results, another measure): all of them.
    expect(pairedSamples([{}], partner)).toEqual(partner);
  });

  test('the worst round: the lowest for >=, the highest for <=', () => {
    const s = spread([0.95, 0.85, 0.92])!;
    expect(worst(s, '>=')).toBe(0.85);
    expect(worst(s, '<=')).toBe(0.95);
  });
});
