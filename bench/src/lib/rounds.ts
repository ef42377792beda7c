/**
 * Interleaved rounds: every round measures every target once, each in a fresh process, and the
 * order turns from one round to the next, so that no target always runs first (on a cold
 * machine) or last (after the others warmed it up), and slow drift of the machine weighs on every
 * target alike. Pure functions (unit-tested in test/rounds.test.ts).
 */

/**
 * The order of round `round` (0-based) of `rounds`: the list turned left by an even share of its
 * length per round, so over the rounds each target starts at a different place. Targets stay
 * next to their neighbours (a bare handler next to the targets measured against it) except where
 * the list wraps.
 */
export function rotation<T>(items: readonly T[], round: number, rounds: number): T[] {
  const n = items.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.round(n / Math.max(1, rounds)));
  const shift = (round * step) % n;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** Every round's order: `plan(items, rounds)[r]` is round r's. */
export function plan<T>(items: readonly T[], rounds: number): T[][] {
  return Array.from({ length: rounds }, (_, round) => rotation(items, round, rounds));
}

/**
 * Runs `measure(item, round, position)` for every item of every round in the rotated order, one
 * at a time, and hands back the results per item (in round order). A throwing measure is
 * recorded as its error and the run goes on.
 */
export async function runRounds<T, R>(
  items: readonly T[],
  rounds: number,
  measure: (item: T, round: number, position: number) => Promise<R>,
): Promise<Map<T, { round: number; position: number; result?: R; error?: string }[]>> {
  const out = new Map<T, { round: number; position: number; result?: R; error?: string }[]>();
  for (const item of items) out.set(item, []);
  for (const [round, order] of plan(items, rounds).entries()) {
    for (const [position, item] of order.entries()) {
      try {
        out.get(item)!.push({ round, position, result: await measure(item, round, position) });
      } catch (error) {
        out.get(item)!.push({ round, position, error: messageOf(error) });
      }
    }
  }
  return out;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
