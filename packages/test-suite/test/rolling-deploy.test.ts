/**
 * The short rolling deploy of `pnpm test` (issue 24, item 4): three Node instances on one
 * redis-server behind HAProxy (the documented configuration), 100 legacy sessions that follow
 * their GET streams and keep calling, a steady `touch`, sessions whose calls stream progress; one
 * instance replaced by SIGTERM with a drain, then one by SIGKILL, with listen streams open and
 * tasks running. What must hold: every session still answers; every stream delivered each stored
 * event once, in order, without a gap (its event ids are consecutive); every session was told of
 * every list change (one notification each, or a new home's catch-up after it); no call ran twice
 * (the running sums); every streamed call ended with its result, `shutdown` or `instance-lost`,
 * each progress event once; every listen stream listens again; every task ends with its result
 * or an error; the SIGTERMed instance drained within its grace and exited 0.
 * `pnpm stress` runs the long version.
 */
import { until } from '@edge-mcp/test-kit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { catchUps, unannounced } from '../src/announced.ts';
import { type Deployment, startDeployment } from '../src/deployment.ts';
import { Workload } from '../src/rolling-deploy.ts';
import { StreamedCalls } from '../src/streamed-calls.ts';
import {
  expectListensAgain,
  expectNoCallTwice,
  expectSessionsSurvived,
  expectStreamedCallsEnded,
  expectStreamsInOrder,
  expectTasksEnded,
} from '../src/workload-checks.ts';

const DRAIN_MS = 3_000;
/** `pnpm stress` runs the long version through these (500 sessions, each instance twice). */
const SESSIONS = Number(process.env.ROLLING_SESSIONS || 100);
const REPLACEMENTS = (process.env.ROLLING_REPLACEMENTS || 'SIGTERM,SIGKILL').split(',') as Array<
  'SIGTERM' | 'SIGKILL'
>;
let deployment: Deployment;
let load: Workload;
let streamed: StreamedCalls;
const drained: Array<{ code: number | null; ms: number }> = [];
const killed: Array<{ code: number | null; ms: number }> = [];

/** Waits until every touch answered so far is announced on every session's stream. */
async function caughtUp(phase: string): Promise<void> {
  const touched = load.touchedAt.slice();
  await until(
    () => load.sessions.every((s) => unannounced(s, touched) === 0) || undefined,
    `every session to be told of the ${touched.length} touches (${phase})`,
    15_000,
    50,
  ).catch(() => undefined);
}

beforeAll(async () => {
  deployment = await startDeployment({ instances: 3, drainMs: DRAIN_MS });
  load = new Workload(deployment.url);
  await load.start(SESSIONS);
  load.listen(Math.ceil(SESSIONS / 10));
  streamed = new StreamedCalls(deployment.url);
  await streamed.start(Math.ceil(SESSIONS / 10));
  await caughtUp('start');
  for (const [i, how] of REPLACEMENTS.entries()) {
    // Tasks running while the instance goes (each instance gets some, round-robin).
    await load.startTasks(Math.ceil(SESSIONS / 10), 2_000);
    const stopped = await deployment.replace(i % deployment.instances.length, how);
    (how === 'SIGTERM' ? drained : killed).push(stopped);
    await caughtUp(`after replacement ${i + 1} (${how})`);
  }
  await Promise.all([load.quiet(), streamed.quiet()]);
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
  await expectSessionsSurvived('rolling deploy', deployment.url, load);
});

test('every streamed call ended with its result or a JSON-RPC error that says why, each progress event once', () => {
  // A killed instance's call: its stream's new home replays what was stored and ends it with
  // instance-lost. A drained one's: its result, or shutdown once the grace ran out. Killed
  // between the request and the first event, HAProxy closes a kept-alive client connection
  // without an answer (HTTP's keep-alive rule: the client may retry what is safe to).
  const { outcomes, resumed } = expectStreamedCallsEnded('rolling deploy', streamed, [
    'result',
    'shutdown',
    'instance-lost',
    'cut before a stream',
  ]);
  // A killed instance's streamed calls were resumed elsewhere (a drained one's finish there).
  if (REPLACEMENTS.includes('SIGKILL')) {
    expect(outcomes.get('instance-lost') ?? 0).toBeGreaterThan(0);
    expect(resumed).toBeGreaterThan(0);
  }
});

test('every listen stream listens again after the replacements: one more change reaches each', async () => {
  await expectListensAgain(load);
});

test('every task ended with its result or an error that says why', async () => {
  await expectTasksEnded('rolling deploy', load, 2_000);
});

test('no call ran twice: each session’s sums rise one by one, a skip only where a call failed', () => {
  expectNoCallTwice(load, 1_000);
});

test('every stream delivered its stored events once, in order, with no gap, through its resumptions', async () => {
  // The last touch (the listen test's) is on its way to the GET streams too.
  await caughtUp('at the end');
  const resumed = expectStreamsInOrder(load);
  // A list change raised while a stream moves between instances reaches neither instance's
  // stream (it is never stored, so no stored id is missing); the stream's new home then sends a
  // catch-up (every list changed), which stands for all of them. Every touch must be announced,
  // one by one or by a catch-up sent after it.
  const missed = load.sessions
    .map((s) => ({ id: s.id, unannounced: unannounced(s, load.touchedAt) }))
    .filter((s) => s.unannounced > 0);
  const short = load.sessions.filter((s) => s.events.length < load.touches.ok);
  const caught = load.sessions.reduce((n, s) => n + catchUps(s), 0);
  // The replaced instances' streams were resumed elsewhere.
  expect(resumed).toBeGreaterThan(20);
  const reached = load.sessions.reduce((n, s) => n + s.events.length, 0);
  const sent = load.touches.ok * load.sessions.length;
  const failures = load.sessions.flatMap((s) => s.failures);
  console.log(
    `rolling deploy: ${load.sessions.length} sessions (${missed.length} not told of every touch, ${short.length} got fewer list changes than touches, ${caught} catch-ups), ${load.touches.ok} touches answered (${load.touches.failed} failed), ${reached} of ${sent} list-changed events reached a stream, ${resumed} resumptions; ${failures.length} calls failed: ${[...new Set(failures)].join(' | ')}; drains took ${drained.map((d) => Math.round(d.ms)).join(', ')} ms`,
  );
  expect(missed).toEqual([]);
});
