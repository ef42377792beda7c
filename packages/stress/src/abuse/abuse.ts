/**
 * The abuse mode: every attack of issue 22's findings (and the earlier ones: slow bodies,
 * refused uploads) against the example server with a small heap, on one runtime, while a
 * well-behaved client keeps calling from another address. What must hold: the server never
 * dies, every call of the well-behaved client succeeds, and once the attacker is gone every
 * budget is back to zero.
 */
import { DEFAULTS } from '@edge-mcp/core';
import { modern } from '@edge-mcp/test-kit';
import {
  type AbuseScale,
  bigTokens,
  droppedLegacyCalls,
  droppedModernCalls,
  heldStreams,
  openSession,
  refusedUploads,
  sessionFlood,
  sessionHeaders,
  slowBodies,
  type Tally,
  templateReads,
} from './attacks.ts';
import { type Runtime, startTarget } from './target.ts';
import { type TaskFlood, taskFlood } from './task-flood.ts';
import { post } from './wire.ts';

export interface AbuseReport {
  runtime: Runtime;
  heapMib: number;
  /** The server was running at the end. */
  alive: boolean;
  /** How it ended, if it did. */
  exit: string | undefined;
  /** The well-behaved client's calls, and those that did not succeed (status, or 0). */
  wellBehaved: { calls: number; failures: number[] };
  /** Its session, opened before the attacks, still answers at the end. */
  sessionKept: boolean;
  attacks: {
    droppedLegacyCalls: Tally;
    droppedModernCalls: Tally;
    refusedUploads: { statuses: string[]; maxWritten: number };
    sessionFlood: Tally;
    /** Sessions a newcomer could open while the attacker held its streams. */
    newcomerWhileStreamsHeld: number;
    bigTokens: Tally;
    templateReads: { statuses: Tally; slowestMs: number; refusal?: string };
    taskFlood: TaskFlood;
  };
  /** `/health` once the attacker was gone and the graces had passed. */
  after: Record<string, unknown>;
  peakRssMib: number;
  ms: number;
}

/** The well-behaved client: a 2026-07-28 echo and a call on its session, in a loop. */
function wellBehavedClient(mcpUrl: string, session: string) {
  let stopped = false;
  const failures: number[] = [];
  let calls = 0;
  const loop = (async () => {
    while (!stopped) {
      const echo = modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      const modernCall = await post(mcpUrl, String(echo.body), {
        from: '127.0.0.1',
        headers: echo.headers as Record<string, string>,
      });
      const legacyCall = await post(
        mcpUrl,
        JSON.stringify({
          jsonrpc: '2.0',
          id: calls,
          method: 'tools/call',
          params: { name: 'tally', arguments: { add: 1 } },
        }),
        { from: '127.0.0.1', headers: sessionHeaders(session) },
      );
      calls += 2;
      for (const { status } of [modernCall, legacyCall]) if (status !== 200) failures.push(status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { calls, failures };
    },
  };
}

/** Polls `/health` until nothing is held, or `ms` passed; the last answer. */
async function settledHealth(
  health: () => Promise<Record<string, unknown>>,
  ms: number,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const now = await health();
    if (
      (now.inFlight === 0 && now.inFlightBytes === 0 && now.openStreams === 0) ||
      Date.now() > deadline
    )
      return now;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runAbuse(
  runtime: Runtime,
  scale: AbuseScale,
  heapMib = 192,
): Promise<AbuseReport> {
  const started = performance.now();
  const target = await startTarget(runtime, heapMib);
  const sampler = setInterval(() => target.sampleRss(), 100);
  try {
    const mcpUrl = target.mcpUrl;
    const mine = await openSession(mcpUrl, '127.0.0.1');
    if (!mine)
      throw new Error(`the well-behaved client could not open a session:\n${target.output()}`);
    const client = wellBehavedClient(mcpUrl, mine);
    const slow = slowBodies(mcpUrl, scale.slowBodies);
    const legacy = await droppedLegacyCalls(mcpUrl, scale.droppedCalls);
    const modernCalls = await droppedModernCalls(mcpUrl, scale.modernCalls);
    const uploads = await refusedUploads(mcpUrl, scale.refusedUploads);
    const flood = await sessionFlood(mcpUrl, scale.initializes);
    const tokens = await bigTokens(mcpUrl, scale.bigTokens);
    const templates = await templateReads(mcpUrl, scale.templateReads);
    const tasks = await taskFlood(mcpUrl, scale.tasksPastQuota);
    const streams = await heldStreams(mcpUrl, scale.heldStreams);
    let newcomer = 0;
    for (let i = 0; i < 5; i++) if (await openSession(mcpUrl, '127.0.0.3')) newcomer++;
    for (const close of [...streams, ...slow]) close();
    const kept = await post(
      mcpUrl,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'last',
        method: 'tools/call',
        params: { name: 'tally', arguments: { add: 0 } },
      }),
      { from: '127.0.0.1', headers: sessionHeaders(mine) },
    );
    // Dropped resumable calls run on for the disconnect grace (30 s) before they are aborted.
    const after = await settledHealth(target.health, 45_000);
    // The well-behaved client called all along, through the graces too.
    const wellBehaved = await client.stop();
    return {
      runtime,
      heapMib,
      alive: target.alive(),
      exit: target.alive() ? undefined : await target.exit,
      wellBehaved,
      sessionKept: kept.status === 200,
      attacks: {
        droppedLegacyCalls: legacy,
        droppedModernCalls: modernCalls,
        refusedUploads: uploads,
        sessionFlood: flood,
        newcomerWhileStreamsHeld: newcomer,
        bigTokens: tokens,
        templateReads: templates,
        taskFlood: tasks,
      },
      after,
      peakRssMib: Math.round(target.peakRssMib()),
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    if (!target.alive())
      throw new Error(
        `the ${runtime} server died (${await target.exit}):\n${target.output().slice(-4000)}`,
      );
    throw error;
  } finally {
    clearInterval(sampler);
    await target.stop();
  }
}

/** One line per runtime for the stress summary. */
export function formatAbuse(report: AbuseReport): string {
  const a = report.attacks;
  return [
    `abuse on ${report.runtime} (heap ${report.heapMib} MiB, ${report.ms} ms): ${report.alive ? 'alive' : `DIED ${report.exit}`}, peak RSS ${report.peakRssMib} MiB`,
    `  well-behaved: ${report.wellBehaved.calls} calls, ${report.wellBehaved.failures.length} failed; its session ${report.sessionKept ? 'kept' : 'LOST'}`,
    `  dropped 4 MB legacy calls ${JSON.stringify(a.droppedLegacyCalls)}, modern ${JSON.stringify(a.droppedModernCalls)}`,
    `  refused 120 MiB uploads ${JSON.stringify(a.refusedUploads.statuses)}, at most ${Math.round(a.refusedUploads.maxWritten / 1048576)} MiB written`,
    `  initialize flood ${JSON.stringify(a.sessionFlood)}; newcomers while streams held: ${a.newcomerWhileStreamsHeld}/5`,
    `  64 KiB tokens ${JSON.stringify(a.bigTokens)}; template reads ${JSON.stringify(a.templateReads.statuses)}, slowest ${a.templateReads.slowestMs} ms`,
    `  tasks within the quota ${JSON.stringify(a.taskFlood.held)}, past it ${JSON.stringify(a.taskFlood.past)}, cancelled ${a.taskFlood.cancelled}; the newcomer's task ${a.taskFlood.newcomer}`,
    `  after: ${JSON.stringify(report.after)}`,
  ].join('\n');
}

/** What a report says broke (the invariants of the abuse mode); empty when all held. */
export function abuseFailures(report: AbuseReport): string[] {
  const broken: string[] = [];
  if (!report.alive) broken.push(`the server died (${report.exit})`);
  if (report.wellBehaved.failures.length > 0)
    broken.push(`the well-behaved client failed ${report.wellBehaved.failures.length} calls`);
  if (!report.sessionKept) broken.push("the well-behaved client's session was lost");
  const { inFlight, inFlightBytes, openStreams } = report.after;
  if (inFlight !== 0 || inFlightBytes !== 0 || openStreams !== 0)
    broken.push(
      `budgets not back to zero: ${JSON.stringify({ inFlight, inFlightBytes, openStreams })}`,
    );
  if (report.attacks.newcomerWhileStreamsHeld < 5) broken.push('a newcomer was locked out');
  // Each read is answered (a JSON-RPC error in a 200): the matcher gives up, it does not hang.
  const reads = report.attacks.templateReads.statuses;
  if (Object.keys(reads).some((status) => status !== '200'))
    broken.push(
      `template reads not answered: ${JSON.stringify(reads)} (${report.attacks.templateReads.refusal})`,
    );
  // One client's tasks take its own quota, never a newcomer's; past it calls run without one.
  const flood = report.attacks.taskFlood;
  const quota = DEFAULTS.tasks.maxActivePerPrincipal;
  if (flood.held.task !== quota || flood.cancelled !== quota)
    broken.push(
      `the attacker's tasks: ${JSON.stringify(flood.held)}, ${flood.cancelled} cancelled`,
    );
  if (Object.keys(flood.past).some((kind) => kind !== 'complete'))
    broken.push(`calls past the task quota: ${JSON.stringify(flood.past)}`);
  if (flood.newcomer !== 'completed') broken.push(`the newcomer's task: ${flood.newcomer}`);
  // A token past the header limit is refused by the runtime's parser (Node may close before the
  // client reads its 431: status 0), never a 5xx; a crash shows as the server's death.
  const tokens = report.attacks.bigTokens;
  if (Object.keys(tokens).some((status) => status.startsWith('5')))
    broken.push(`64 KiB tokens not refused: ${JSON.stringify(tokens)}`);
  return broken;
}
