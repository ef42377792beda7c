/**
 * What must hold after a `Workload` and `StreamedCalls` ran through a disruption (a rolling
 * deploy, a Redis Cluster's failovers and slot migrations): every session still answers, no call
 * ran twice, every stream delivered its stored events once and in order, every task and every
 * streamed call ended saying how. `label` names the run in what is printed.
 */
import { LEGACY, legacy, readAnswer, until } from '@edge-mcp/test-kit';
import { expect } from 'vitest';
import type { Workload } from './rolling-deploy.ts';
import type { StreamedCall, StreamedCalls } from './streamed-calls.ts';

/** One more `tally` per session (twenty at a time, as a pool of clients): each answers the next sum. */
export async function expectSessionsSurvived(
  label: string,
  url: string,
  load: Workload,
): Promise<void> {
  // A connection a proxy closes without an answer (HAProxy's keep-alive rule when the instance's
  // side of a kept-alive connection fails) is tried once more, as a client that may run the call
  // twice would; the sums still only rise.
  const next: Array<number | undefined> = [];
  let retried = 0;
  const tally = (session: string) =>
    fetch(
      `${url}/mcp`,
      legacy('tools/call', { name: 'tally', arguments: { add: 1 } }, session, { version: LEGACY }),
    );
  for (let i = 0; i < load.sessions.length; i += 20) {
    const batch = await Promise.all(
      load.sessions.slice(i, i + 20).map(async (session) => {
        const response = await tally(session.id).catch((error: unknown) => {
          if (!(error instanceof TypeError)) throw error;
          retried++;
          return tally(session.id);
        });
        const answer = await readAnswer(response);
        return answer.message.result?.structuredContent?.sum as number | undefined;
      }),
    );
    next.push(...batch);
  }
  if (retried > 0) console.log(`${label}: ${retried} last calls were tried twice`);
  expect(retried).toBeLessThan(5);
  expect(next.filter((sum) => typeof sum !== 'number')).toEqual([]);
  load.sessions.forEach((session, i) => {
    expect(next[i], session.id).toBeGreaterThan(session.sums.at(-1) ?? 0);
  });
}

/** No call ran twice: each session's sums rise one by one, a skip only where a call failed. */
export function expectNoCallTwice(load: Workload, minimumAnswered: number): void {
  for (const session of load.sessions) {
    expect(session.sums, session.id).toEqual([...new Set(session.sums)].sort((a, b) => a - b));
    const skipped = (session.sums.at(-1) ?? 0) - session.sums.length;
    expect(skipped, session.id).toBeLessThanOrEqual(session.failures.length);
    expect(skipped, session.id).toBeGreaterThanOrEqual(0);
  }
  const answered = load.sessions.reduce((n, s) => n + s.sums.length, 0);
  expect(answered).toBeGreaterThan(minimumAnswered);
  // A call that failed was told why: a JSON-RPC error (a proxy's own pages are ones too) or a
  // connection the proxy closed; never a page the client cannot read.
  const unreadable = load.sessions
    .flatMap((s) => s.failures)
    .filter((f) => /Unexpected token|no JSON-RPC answer/.test(f));
  expect(unreadable).toEqual([]);
}

/**
 * Every GET stream delivered its stored events once, in order, with no gap (its event ids are
 * consecutive), through its resumptions; resolves with how many resumptions there were.
 */
export function expectStreamsInOrder(load: Workload): number {
  let resumed = 0;
  for (const session of load.sessions) {
    const streams = new Set(session.ids.map((id) => id.slice(0, id.lastIndexOf('-'))));
    expect(streams.size, session.id).toBe(1);
    const seqs = session.ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    const first = seqs[0] ?? 1;
    expect(seqs, session.id).toEqual(seqs.map((_, i) => first + i));
    resumed += session.connects - 1;
  }
  return resumed;
}

/**
 * Every streamed call ended with one of `outcomes`, each progress event once and in order; a
 * call answered read all 20. Then either every call of `healed` (begun after the disruption
 * ended) has its result, or, without them, more than half of all calls had theirs. Resolves with
 * the count of each outcome and of resumed calls.
 */
export function expectStreamedCallsEnded(
  label: string,
  streamed: StreamedCalls,
  outcomes: readonly string[],
  healed?: readonly StreamedCall[],
): { outcomes: Map<string, number>; resumed: number } {
  const seen = new Map<string, number>();
  for (const call of streamed.calls) seen.set(call.outcome, (seen.get(call.outcome) ?? 0) + 1);
  const resumed = streamed.calls.filter((call) => call.streams > 1).length;
  console.log(
    `${label} streamed calls: ${streamed.calls.length}, ${resumed} resumed; ${[...seen].map(([o, n]) => `${n} ${o}`).join(', ')}`,
  );
  for (const call of streamed.calls) {
    expect(outcomes).toContain(call.outcome);
    expect(call.progress, call.outcome).toEqual(call.progress.map((_, i) => i + 1));
    if (call.outcome === 'result') expect(call.progress.length).toBe(20);
  }
  if (healed === undefined)
    expect(seen.get('result') ?? 0).toBeGreaterThan(streamed.calls.length / 2);
  else {
    // How many calls a disruption refuses depends on how long it lasts on this machine (a
    // failover took 1 to 5 s); once it is over, every session's next call must be answered.
    expect(healed.length).toBeGreaterThan(0);
    expect(healed.map((call) => call.outcome)).toEqual(healed.map(() => 'result'));
  }
  return { outcomes: seen, resumed };
}

/** Every task ended with its result (`slept <ms> ms`) or an error that says why. */
export async function expectTasksEnded(label: string, load: Workload, ms: number): Promise<void> {
  await until(
    () => load.tasks.every((task) => task.status !== 'working') || undefined,
    'every task to end',
    30_000,
    100,
  ).catch(() => undefined);
  const outcomes = load.tasks.map((task) => `${task.status}: ${task.outcome}`);
  console.log(
    `${label} tasks: ${load.tasks.length} started (${load.taskStartsLost} starts refused or cut): ${[...new Set(outcomes)].join(' | ')}`,
  );
  expect(load.tasks.length).toBeGreaterThan(load.taskStartsLost);
  expect(load.tasks.filter((task) => task.status === 'working').map((t) => t.id)).toEqual([]);
  for (const task of load.tasks) {
    if (task.status === 'completed') expect(task.outcome).toBe(`slept ${ms} ms`);
    else expect(task.outcome, task.id).toMatch(/\w/);
  }
}

/**
 * Every listen stream listens (again, after its instance went: `reconnected`): one more change
 * reaches each.
 */
export async function expectListensAgain(load: Workload, reconnected = true): Promise<void> {
  const before = load.listens.map((listen) => listen.changes);
  await load.touch();
  await until(
    () => load.listens.every((listen, i) => listen.changes > (before[i] as number)) || undefined,
    'the change to reach every listen stream',
    15_000,
    50,
  );
  if (reconnected)
    expect(load.listens.reduce((n, l) => n + l.connects, 0)).toBeGreaterThan(load.listens.length);
}
