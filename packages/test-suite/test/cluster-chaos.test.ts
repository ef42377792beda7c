/**
 * The short chaos run of `pnpm test` on a sharded Redis Cluster (issue 26, item 3): three Node
 * instances on a cluster of 3 primaries with one replica each, behind the round-robin proxy; legacy
 * sessions that follow their GET streams and keep calling, a steady `touch`, calls that stream
 * progress, listen streams and tasks; meanwhile a manual failover, a primary SIGKILLed until its
 * replica is promoted, and a live migration of 1024 slots. What must hold: no session is lost
 * (each answers the next sum), no call ran twice, every stream delivered its stored events once,
 * in order, without a gap, every streamed call and task ended saying how, listen streams listen
 * again, and a cancel sent to one instance still aborts the call running on another.
 * `pnpm stress` runs the long version (CHAOS_SESSIONS, CHAOS_ROUNDS).
 */
import { LEGACY, legacy, notification, openSession, within } from '@edge-mcp/test-kit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ChaosDone, type ChaosStep, chaosStep } from '../src/cluster-chaos.ts';
import { Workload } from '../src/rolling-deploy.ts';
import { type StreamedCall, StreamedCalls } from '../src/streamed-calls.ts';
import { running, waitForLog } from '../src/suite/wait.ts';
import { type ClusterTarget, clusterTarget } from '../src/targets/cluster.ts';
import {
  expectListensAgain,
  expectNoCallTwice,
  expectSessionsSurvived,
  expectStreamedCallsEnded,
  expectStreamsInOrder,
  expectTasksEnded,
} from '../src/workload-checks.ts';

const SESSIONS = Number(process.env.CHAOS_SESSIONS || 40);
const ROUNDS = Number(process.env.CHAOS_ROUNDS || 1);
const STEPS: ChaosStep[] = ['failover', 'kill-primary', 'reshard'];
const TASK_MS = 2_000;
let target: ClusterTarget;
let load: Workload;
let streamed: StreamedCalls;
const done: ChaosDone[] = [];
/** The first streamed call of each session begun after the last chaos step. */
let healed: StreamedCall[] = [];

beforeAll(async () => {
  target = await clusterTarget(['node', 'node', 'node'], { sharded: true });
  const cluster = target.sharded;
  if (!cluster) throw new Error('the target has no Redis Cluster');
  load = new Workload(target.url);
  await load.start(SESSIONS);
  load.listen(Math.ceil(SESSIONS / 10));
  streamed = new StreamedCalls(target.url);
  await streamed.start(Math.ceil(SESSIONS / 10));
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, step] of STEPS.entries()) {
      await load.startTasks(Math.ceil(SESSIONS / 10), TASK_MS);
      done.push(await chaosStep(cluster, step, round * STEPS.length + i));
    }
  // A call takes 2 s (20 events); a session refused meanwhile waits its Retry-After first.
  healed = await within(streamed.nextCalls(), 'a call of every session after the chaos', 60_000);
  await Promise.all([load.quiet(), streamed.quiet()]);
}, 240_000 * ROUNDS);

afterAll(async () => {
  await load?.close();
  await target?.stop();
});

test('every chaos step left a whole cluster', () => {
  console.log(`cluster chaos: ${done.map((d) => `${d.step} (${d.detail}) ${d.ms} ms`).join('; ')}`);
  expect(done.map((d) => d.step)).toEqual(Array.from({ length: ROUNDS }, () => STEPS).flat());
});

test('no session was lost: one more call answers with the next sum', async () => {
  await expectSessionsSurvived('cluster chaos', target.url, load);
});

test('no call ran twice; a state write is lost only if it was in flight as its primary died', () => {
  // Redis replicates asynchronously: a write its primary took (and its replica did not yet) when
  // SIGKILLed is gone after the promotion, and the next call repeats its sum. WAIT narrows that
  // to the writes in flight at that instant: at most one per session and killed primary.
  const kills = done.filter((d) => d.step === 'kill-primary').length;
  let lost = 0;
  for (const session of load.sessions) {
    const repeats = session.sums.length - new Set(session.sums).size;
    expect(repeats, session.id).toBeLessThanOrEqual(kills);
    lost += repeats;
  }
  console.log(
    `cluster chaos: ${lost} state writes lost in flight at ${kills} primary crashes; 0 sessions lost`,
  );
  if (lost === 0) expectNoCallTwice(load, 200);
});

test('every stream delivered its stored events once, in order, with no gap', () => {
  const resumed = expectStreamsInOrder(load);
  const failures = load.sessions.flatMap((s) => s.failures);
  console.log(
    `cluster chaos: ${load.sessions.length} sessions, ${resumed} stream resumptions, ${load.touches.ok} touches (${load.touches.failed} failed); ${failures.length} calls failed: ${[...new Set(failures)].join(' | ')}`,
  );
});

test('every streamed call ended with its result or an error that says why, each progress event once', () => {
  // No instance dies here: a call whose Redis shard failed over goes on (its events that could
  // not be stored meanwhile went out live without ids); one sent while its shard was away was
  // refused with 503 and ran nowhere.
  expectStreamedCallsEnded(
    'cluster chaos',
    streamed,
    ['result', 'instance-lost', 'HTTP 503'],
    healed,
  );
});

test('every task ended; every listen stream still hears a change', async () => {
  await expectTasksEnded('cluster chaos', load, TASK_MS);
  // No instance went: the listen streams stayed open through the chaos.
  await expectListensAgain(load, false);
});

test('after the chaos, a cancel sent to B still aborts the call running on A', async () => {
  const [a, b] = [target.instances[0], target.instances[1]];
  if (!a || !b) throw new Error('two instances');
  const session = await openSession(a.mcpUrl, LEGACY);
  const id = 'chaos-cancel';
  const pending = fetch(
    a.mcpUrl,
    legacy('tools/call', { name: 'sleep', arguments: { ms: 30_000 } }, session, {
      version: LEGACY,
      id,
    }),
  );
  await running(a.url, pending);
  const cancelled = await fetch(
    b.mcpUrl,
    notification('notifications/cancelled', { requestId: id }, session, { version: LEGACY }),
  );
  expect(cancelled.status).toBe(202);
  const line = await waitForLog(a.log, (l) => l.id === id && l.sessionId === session, 5_000);
  expect(line).toMatchObject({ outcome: 'cancelled', reason: 'client-cancel' });
  await (await pending).text();
});
