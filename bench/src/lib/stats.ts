/**
 * The statistics of a run: every figure is taken once per round, and reported as the median of
 * its rounds with their min–max. Pure functions (unit-tested in test/stats.test.ts).
 */

/** A figure over the rounds that measured it. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many rounds measured it. */
  n: number;
  /** The value of each round, in round order. */
  values: number[];
}

/** The median of `values` (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median, min and max of the finite values; null when none is finite. */
export function spread(values: readonly (number | null | undefined)[]): Spread | null {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (finite.length === 0) return null;
  return {
    median: median(finite),
    min: Math.min(...finite),
    max: Math.max(...finite),
    n: finite.length,
    values: finite,
  };
}

/** The `p`th percentile (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/** p50, p99 and max of `values` (ms, in any order); NaN when empty. */
export function latencies(values: readonly number[]): {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? Number.NaN,
  };
}

/**
 * A figure per round from samples that carry their round: the median of the round's samples
 * (start-up has several per round; the other measures one, so it is that sample's value).
 */
export function roundMedians<S extends { round: number }>(
  samples: readonly S[],
  pick: (sample: S) => number,
): Map<number, number> {
  const rounds = new Map<number, number[]>();
  for (const sample of samples)
    rounds.set(sample.round, [...(rounds.get(sample.round) ?? []), pick(sample)]);
  return new Map([...rounds].map(([round, values]) => [round, median(values)]));
}

/**
 * `theirs` (a partner's samples) as paired with `mine`: in each round where one of mine names a
 * partner sample (`partner`, the `seq` of the sample taken right before it), those; in the other
 * rounds, all of the round's (older results, other measures, a partner that failed).
 */
export function pairedSamples<S extends { round: number; seq?: number; partner?: number }>(
  mine: readonly { partner?: number }[],
  theirs: readonly S[],
): S[] {
  const named = new Set(mine.flatMap((s) => (s.partner === undefined ? [] : [s.partner])));
  const picked = theirs.filter((s) => s.seq !== undefined && named.has(s.seq));
  const paired = new Set(picked.map((s) => s.round));
  return [...picked, ...theirs.filter((s) => !paired.has(s.round))];
}

/**
 * Per-round ratios of two figures measured in the same rounds: `numerator[r] / denominator[r]`
 * for every round where both are known and the denominator is positive.
 */
export function pairedRatios(
  numerator: ReadonlyMap<number, number>,
  denominator: ReadonlyMap<number, number>,
): number[] {
  const ratios: number[] = [];
  for (const [round, value] of [...numerator].sort(([a], [b]) => a - b)) {
    const base = denominator.get(round);
    if (base !== undefined && base > 0 && Number.isFinite(value)) ratios.push(value / base);
  }
  return ratios;
}

/** The round that is worst for a goal: the lowest value for `>=`, the highest for `<=`. */
export function worst(values: Spread, comparison: '>=' | '<='): number {
  return comparison === '>=' ? values.min : values.max;
}
