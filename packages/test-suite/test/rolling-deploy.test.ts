/**
 * The short rolling deploy of `pnpm test` (issue 24, item 4): three Node instances on one
 * redis-server behind HAProxy (the documented configuration), 100 legacy sessions that follow
 * their GET streams and keep calling, a steady `touch`; one instance replaced by SIGTERM with a
 * drain, then one by SIGKILL. What must hold: every session still answers; every stream delivered
 * each stored event once, in order, without a gap (its event ids are consecutive); no call ran
 * twice (the running sums); the SIGTERMed instance drained within its grace and exited 0.
 * `pnpm stress` runs the long version.
 */
import { LEGACY, legacy, readAnswer, until } from '@edge-mcp/test-kit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Deployment, startDeployment, Workload } from '../src/rolling-deploy.ts';

const DRAIN_MS = 3_000;
let deployment: Deployment;
let load: Workload;
let drained: { code: number | null; ms: number };
let killed: { code: number | null; ms: number };

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
  await load.start(100);
  await caughtUp('start');
  drained = await deployment.replace(0, 'SIGTERM');
  await caughtUp('after the drain');
  killed = await deployment.replace(1, 'SIGKILL');
  await caughtUp('after the crash');
  await load.quiet();
}, 150_000);

afterAll(async () => {
  await load?.close();
  await deployment?.stop();
});

test('the SIGTERMed instance drained within its grace and exited 0; the killed one died', () => {
  expect(drained.code).toBe(0);
  expect(drained.ms).toBeLessThan(DRAIN_MS + 5_000);
  expect(killed.code).toBe(null);
});

test('every session survived: one more call answers with the next sum', async () => {
  const next = await Promise.all(
    load.sessions.map(async (session) => {
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
  expect(next.filter((sum) => typeof sum !== 'number')).toEqual([]);
  load.sessions.forEach((session, i) => {
    expect(next[i], session.id).toBeGreaterThan(session.sums.at(-1) ?? 0);
  });
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
});

test('every stream delivered its stored events once, in order, with no gap, through its resumptions', () => {
  let resumed = 0;
  for (const session of load.sessions) {
    const streams = new Set(session.events.map((id) => id.slice(0, id.lastIndexOf('-'))));
    expect(streams.size, session.id).toBe(1);
    const seqs = session.events.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    const first = seqs[0] ?? 1;
    expect(seqs, session.id).toEqual(seqs.map((_, i) => first + i));
    resumed += session.connects - 1;
  }
  // The replaced instances' streams were resumed elsewhere.
  expect(resumed).toBeGreaterThan(20);
  const reached = load.sessions.reduce((n, s) => n + s.events.length, 0);
  const sent = load.touches.ok * load.sessions.length;
  const failures = load.sessions.flatMap((s) => s.failures);
  console.log(
    `rolling deploy: ${load.sessions.length} sessions, ${load.touches.ok} touches answered (${load.touches.failed} failed), ${reached} of ${sent} list-changed events reached a stream, ${resumed} resumptions; ${failures.length} calls failed: ${[...new Set(failures)].join(' | ')}; the drain took ${Math.round(drained.ms)} ms`,
  );
});
