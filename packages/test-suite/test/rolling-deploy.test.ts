/**
 * The short rolling deploy of `pnpm test` (issue 24, item 4): three Node instances on one
 * redis-server behind HAProxy (the documented configuration), 100 legacy sessions that follow
 * their GET streams and keep calling, a steady `touch`; one instance replaced by SIGTERM with a
 * drain, then one by SIGKILL, with listen streams open and tasks running. What must hold: every
 * session still answers; every stream delivered each stored event once, in order, without a gap
 * (its event ids are consecutive); no call ran twice (the running sums); every listen stream
 * listens again; every task ends with its result or an error; the SIGTERMed instance drained
 * within its grace and exited 0.
 * `pnpm stress` runs the long version.
 */
import { LEGACY, legacy, readAnswer, until } from '@edge-mcp/test-kit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Deployment, startDeployment } from '../src/deployment.ts';
import { Workload } from '../src/rolling-deploy.ts';

const DRAIN_MS = 3_000;
/** `pnpm stress` runs the long version through these (500 sessions, each instance twice). */
const SESSIONS = Number(process.env.ROLLING_SESSIONS || 100);
const REPLACEMENTS = (process.env.ROLLING_REPLACEMENTS || 'SIGTERM,SIGKILL').split(',') as Array<
  'SIGTERM' | 'SIGKILL'
>;
let deployment: Deployment;
let load: Workload;
const drained: Array<{ code: number | null; ms: number }> = [];
const killed: Array<{ code: number | null; ms: number }> = [];

/** Waits until every stream has as many events as touches were answered when it was called. */
async function caughtUp(phase: string): Promise<void> {
  const target = load.touches.ok;
  await until(
    () => load.sessions.every((s) => s.events.length >= target) || undefined,
    `the streams to reach ${target} events (${phase})`,
    15_000,
    50,
  ).catch(() => undefined);
}

beforeAll(async () => {
  deployment = await startDeployment({ instances: 3, drainMs: DRAIN_MS });
  load = new Workload(deployment.url);
  await load.start(SESSIONS);
  load.listen(Math.ceil(SESSIONS / 10));
  await caughtUp('start');
  for (const [i, how] of REPLACEMENTS.entries()) {
    // Tasks running while the instance goes (each instance gets some, round-robin).
    await load.startTasks(Math.ceil(SESSIONS / 10), 2_000);
    const stopped = await deployment.replace(i % deployment.instances.length, how);
    (how === 'SIGTERM' ? drained : killed).push(stopped);
    await caughtUp(`after replacement ${i + 1} (${how})`);
  }
  await load.quiet();
}, 150_000 * REPLACEMENTS.length);

afterAll(async () => {
  await load?.close();
  await deployment?.stop();
});

test('each SIGTERMed instance drained within its grace and exited 0; each killed one died', () => {
  expect(drained.length + killed.length).toBe(REPLACEMENTS.length);
  for (const stopped of drained) {
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(DRAIN_MS + 5_000);
  }
  for (const stopped of killed) expect(stopped.code).toBe(null);
});

test('every session survived: one more call answers with the next sum', async () => {
  // Twenty at a time, as a pool of clients would.
  const next: Array<number | undefined> = [];
  for (let i = 0; i < load.sessions.length; i += 20) {
    const batch = await Promise.all(
      load.sessions.slice(i, i + 20).map(async (session) => {
        const answer = await readAnswer(
          await fetch(
            `${deployment.url}/mcp`,
            legacy('tools/call', { name: 'tally', arguments: { add: 1 } }, session.id, {
              version: LEGACY,
            }),
          ),
        );
        return answer.message.result?.structuredContent?.sum as number | undefined;
      }),
    );
    next.push(...batch);
  }
  expect(next.filter((sum) => typeof sum !== 'number')).toEqual([]);
  load.sessions.forEach((session, i) => {
    expect(next[i], session.id).toBeGreaterThan(session.sums.at(-1) ?? 0);
  });
});

test('every listen stream listens again after the replacements: one more change reaches each', async () => {
  const before = load.listens.map((listen) => listen.changes);
  await load.touch();
  await until(
    () => load.listens.every((listen, i) => listen.changes > (before[i] as number)) || undefined,
    'the change to reach every listen stream',
    15_000,
    50,
  );
  expect(load.listens.reduce((n, l) => n + l.connects, 0)).toBeGreaterThan(load.listens.length);
});

test('every task ended with its result or an error that says why', async () => {
  await until(
    () => load.tasks.every((task) => task.status !== 'working') || undefined,
    'every task to end',
    30_000,
    100,
  ).catch(() => undefined);
  const outcomes = load.tasks.map((task) => `${task.status}: ${task.outcome}`);
  console.log(
    `rolling deploy tasks: ${load.tasks.length} started (${load.taskStartsLost} starts refused or cut): ${[...new Set(outcomes)].join(' | ')}`,
  );
  expect(load.tasks.length).toBeGreaterThan(load.taskStartsLost);
  expect(load.tasks.filter((task) => task.status === 'working').map((t) => t.id)).toEqual([]);
  for (const task of load.tasks) {
    if (task.status === 'completed') expect(task.outcome).toBe('slept 2000 ms');
    else expect(task.outcome, task.id).toMatch(/\w/);
  }
});

test('no call ran twice: each session’s sums rise one by one, a skip only where a call failed', () => {
  for (const session of load.sessions) {
    expect(session.sums, session.id).toEqual([...new Set(session.sums)].sort((a, b) => a - b));
    const skipped = (session.sums.at(-1) ?? 0) - session.sums.length;
    expect(skipped, session.id).toBeLessThanOrEqual(session.failures.length);
    expect(skipped, session.id).toBeGreaterThanOrEqual(0);
  }
  const answered = load.sessions.reduce((n, s) => n + s.sums.length, 0);
  expect(answered).toBeGreaterThan(1_000);
  // A call that failed was told why: a JSON-RPC error (HAProxy's own pages are ones too) or a
  // connection the proxy closed; never a page the client cannot read.
  const unreadable = load.sessions
    .flatMap((s) => s.failures)
    .filter((f) => /Unexpected token|no JSON-RPC answer/.test(f));
  expect(unreadable).toEqual([]);
});

test('every stream delivered its stored events once, in order, with no gap, through its resumptions', async () => {
  // The last touch (the listen test's) is on its way to the GET streams too.
  await caughtUp('at the end');
  let resumed = 0;
  for (const session of load.sessions) {
    const streams = new Set(session.ids.map((id) => id.slice(0, id.lastIndexOf('-'))));
    expect(streams.size, session.id).toBe(1);
    const seqs = session.ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    const first = seqs[0] ?? 1;
    expect(seqs, session.id).toEqual(seqs.map((_, i) => first + i));
    resumed += session.connects - 1;
  }
  // Measured, not asserted: a list change raised while a stream moves between instances can
  // still miss a session (never stored, so no stored id is missing); the catch-up list_changed
  // of a stream's new home covers most of them.
  const short = load.sessions.filter((s) => s.events.length < load.touches.ok);
  // The replaced instances' streams were resumed elsewhere.
  expect(resumed).toBeGreaterThan(20);
  const reached = load.sessions.reduce((n, s) => n + s.events.length, 0);
  const sent = load.touches.ok * load.sessions.length;
  const failures = load.sessions.flatMap((s) => s.failures);
  console.log(
    `rolling deploy: ${load.sessions.length} sessions (${short.length} missed a list change), ${load.touches.ok} touches answered (${load.touches.failed} failed), ${reached} of ${sent} list-changed events reached a stream, ${resumed} resumptions; ${failures.length} calls failed: ${[...new Set(failures)].join(' | ')}; drains took ${drained.map((d) => Math.round(d.ms)).join(', ')} ms`,
  );
});
