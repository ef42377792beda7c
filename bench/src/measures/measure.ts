/**
 * What the measures share: interleaved rounds over the targets that can run here, a log line per
 * sample, the rows' failed rounds, and the figures summarised over the rounds (median, min–max).
 */
import { messageOf, runRounds } from '../lib/rounds.ts';
import { type RunningTarget, startTarget, type TargetSpec } from '../lib/spawn.ts';
import { pairedRatios, pairedSamples, roundMedians, type Spread, spread } from '../lib/stats.ts';
import { loadAverage } from '../lib/system.ts';

/** Where a sample sits: its round, its place in the round, the 1-minute load when it started. */
export interface Stamp {
  round: number;
  position: number;
  load1: number;
  /** Its number in the measure's run, for a paired sample to name (absent in older results). */
  seq?: number;
  /** The `seq` of its partner's sample taken just before it (see `Pairing`). */
  partner?: number;
}

/**
 * Goal pairs measured side by side. This machine's speed drifts by tens of percent over minutes
 * (a bare handler's CPU per call from 31 to 47 µs between rounds of one run), so a ratio of two
 * targets measured minutes apart in a round says as much about the drift as about them. With a
 * pairing, a target whose partner (what its goals compare it with) did not end a sample in this
 * round within `freshMs` gets a fresh partner sample first, and its own sample names it
 * (`partner`): ratios are then taken between neighbours (`pairedSamples`). The partner's extra
 * samples count among its own.
 */
export interface Pairing<T> {
  partnerOf: (target: T) => T | undefined;
  freshMs: number;
}

/** A target's samples, its failed rounds (`round 2: …`) and why it was skipped, if it was. */
export interface Measured<S> {
  samples: S[];
  errors: string[];
  skipped?: string;
}

interface Runnable {
  id: string;
  unavailable?: () => string | undefined;
}

/** How a measure takes one sample and says it in the log. */
export interface Rounds<T, S> {
  /** The head of the sample's log line. */
  name: (target: T) => string;
  once: (target: T, round: number, position: number) => Promise<S>;
  describe: (sample: S & Stamp) => string;
}

/**
 * Runs `once` for every target in interleaved rounds (src/lib/rounds.ts), each sample stamped
 * when it starts, a target that cannot run here skipped with its reason; logs
 * `round r/R  <name> <describe(sample)>` per sample (or the error of a failed one). With a
 * `pairing`, partners are measured again where they are not fresh (see `Pairing`).
 */
export async function measureRounds<T extends Runnable, S>(
  targets: readonly T[],
  rounds: number,
  log: (line: string) => void,
  { name, once, describe, pairing }: Rounds<T, S> & { pairing?: Pairing<T> },
): Promise<Map<T, Measured<S & Stamp>>> {
  const skipped = new Map<T, string>();
  for (const target of targets) {
    const reason = target.unavailable?.();
    if (reason) {
      skipped.set(target, reason);
      log(`${target.id}: skipped, ${reason}`);
    }
  }
  const runnable = targets.filter((target) => !skipped.has(target));
  let seq = 0;
  const last = new Map<T, { sample: S & Stamp; round: number; endedAt: number }>();
  const extra = new Map<T, (S & Stamp)[]>();
  const take = async (target: T, round: number, position: number, partner?: number) => {
    const head = `round ${round + 1}/${rounds}  ${name(target)}`;
    try {
      const at: Stamp = { round, position, load1: loadAverage()[0], seq: seq++ };
      const sample = { ...at, ...(await once(target, round, position)) } as S & Stamp;
      if (partner !== undefined) sample.partner = partner;
      last.set(target, { sample, round, endedAt: performance.now() });
      log(`${head} ${describe(sample)}${partner === undefined ? '' : '  (paired)'}`);
      return sample;
    } catch (error) {
      log(`${head} ${messageOf(error)}`);
      throw error;
    }
  };
  /** The `seq` of a fresh sample of `target`'s partner in `round`, measured now if need be. */
  const partnerSeq = async (target: T, round: number, position: number) => {
    const partner = pairing?.partnerOf(target);
    if (!pairing || !partner || !runnable.includes(partner)) return undefined;
    const fresh = () => {
      const prior = last.get(partner);
      return prior && prior.round === round && performance.now() - prior.endedAt <= pairing.freshMs
        ? prior.sample.seq
        : undefined;
    };
    if (fresh() !== undefined) return fresh();
    // A partner that fails now leaves its target unpaired in this round, not failed.
    const sample = await take(partner, round, position).catch(() => undefined);
    if (sample) extra.set(partner, [...(extra.get(partner) ?? []), sample]);
    return sample?.seq;
  };
  const results = await runRounds(runnable, rounds, async (target, round, position) =>
    take(target, round, position, await partnerSeq(target, round, position)),
  );
  return new Map(
    targets.map((target) => {
      const runs = results.get(target) ?? [];
      const reason = skipped.get(target);
      const samples = runs.flatMap((run) => (run.result === undefined ? [] : [run.result]));
      samples.push(...(extra.get(target) ?? []));
      const measured: Measured<S & Stamp> = {
        samples: samples.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0)),
        errors: runs.flatMap((run) => (run.error ? [`round ${run.round + 1}: ${run.error}`] : [])),
        ...(reason ? { skipped: reason } : {}),
      };
      return [target, measured];
    }),
  );
}

/** `measureRounds`, then a row per target: its id, what `row` makes of its samples, the rest. */
export async function measureRows<T extends Runnable, S, X>(
  targets: readonly T[],
  rounds: number,
  log: (line: string) => void,
  {
    row,
    ...spec
  }: Rounds<T, S> & { row: (target: T, samples: (S & Stamp)[]) => X; pairing?: Pairing<T> },
) {
  const measured = await measureRounds(targets, rounds, log, spec);
  return targets.map((target) => {
    const { samples, errors, skipped } = measured.get(target)!;
    return {
      id: target.id,
      ...row(target, samples),
      samples,
      errors,
      ...(skipped ? { skipped } : {}),
    };
  });
}

/**
 * `warmUp` uncounted runs of `once` (first calls compile the code paths; their failures are
 * ignored), then `count` counted ones: their values, and how many failed.
 */
export async function series<V>(
  warmUp: number,
  count: number,
  once: (i: number, counted: boolean) => Promise<V>,
): Promise<{ values: V[]; failures: number }> {
  for (let i = 0; i < warmUp; i++) await once(i, false).catch(() => {});
  const values: V[] = [];
  let failures = 0;
  for (let i = 0; i < count; i++) {
    try {
      values.push(await once(i, true));
    } catch {
      failures++;
    }
  }
  return { values, failures };
}

/** Starts `spec`, hands it to `use`, and stops it however `use` ends. */
export async function withTarget<R>(
  spec: TargetSpec,
  use: (server: RunningTarget) => Promise<R>,
): Promise<R> {
  const server = await startTarget(spec);
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

/** The spread over the samples of each named figure. */
export function spreadsOf<S, K extends keyof S>(
  samples: readonly S[],
  keys: readonly K[],
): Record<K, Spread | null> {
  const out = {} as Record<K, Spread | null>;
  for (const key of keys) out[key] = spread(samples.map((s) => s[key] as number | null));
  return out;
}

/** The counts of every item, added up key by key. */
export function addAll<S>(items: readonly S[], pick: (item: S) => Record<string, number>) {
  const all: Record<string, number> = {};
  for (const item of items)
    for (const [key, n] of Object.entries(pick(item))) all[key] = (all[key] ?? 0) + n;
  return all;
}

export const sum = <S>(samples: readonly S[], pick: (sample: S) => number) =>
  samples.reduce((total, sample) => total + pick(sample), 0);

/**
 * Each row's `key` (by default `ratio`): its figure over its baseline's, per round (the rounds
 * where `pick` gives both a figure), summarised over the rounds.
 */
export function ratiosToBaselines<
  R extends {
    id: string;
    baseline: string | null;
    samples: { round: number; seq?: number; partner?: number }[];
  },
>(
  rows: R[],
  pick: (sample: R['samples'][number]) => number | null,
  key: { [K in keyof R]: R[K] extends Spread | null ? K : never }[keyof R] = 'ratio' as never,
): R[] {
  const byRound = (row: R) =>
    roundMedians(
      row.samples.filter((s) => pick(s) !== null),
      (s) => pick(s) as number,
    );
  for (const row of rows) {
    const base = rows.find((r) => r.id === row.baseline);
    if (!base) continue;
    const theirs = byRound({ ...base, samples: pairedSamples(row.samples, base.samples) });
    (row[key] as Spread | null) = spread(pairedRatios(byRound(row), theirs));
  }
  return rows;
}
