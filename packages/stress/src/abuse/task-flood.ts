/**
 * The task attack of the fairness issue (finding 2): one client starts tasks until it holds its
 * whole quota, then asks for more, while a newcomer from another address asks for one. Before the
 * quota was per principal, every unauthenticated 2026-07-28 client shared one task binding, so
 * the attacker's tasks took the newcomer's.
 */
import { DEFAULTS } from '@edge-mcp/core';
import { modern } from '@edge-mcp/test-kit';
import { ATTACKER, pool, post, rpcAnswer } from './wire.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const NEWCOMER = '127.0.0.4';

export interface TaskFlood {
  /** What the attacker's calls within its quota became: `task`, `complete` or `error <code>`. */
  held: Record<string, number>;
  /** What its calls past the quota became (they run as plain calls: `complete`). */
  past: Record<string, number>;
  /** The newcomer's task: its final status (`completed` when it was served). */
  newcomer: string;
  /** The attacker's tasks that `tasks/cancel` ended. */
  cancelled: number;
}

interface Outcome {
  kind: string;
  taskId?: string;
}

/** A 2026-07-28 request asking for a task where the tool allows one, from `from`. */
async function send(
  mcpUrl: string,
  from: string,
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const init = modern(method, params, { capabilities: TASKS });
  const sent = await post(mcpUrl, String(init.body), {
    from,
    headers: init.headers as Record<string, string>,
  });
  return rpcAnswer(sent.text) ?? { error: { code: `http ${sent.status}` } };
}

async function sleepCall(mcpUrl: string, from: string, ms: number): Promise<Outcome> {
  const answer = await send(mcpUrl, from, 'tools/call', { name: 'sleep', arguments: { ms } });
  const result = answer?.result as { resultType?: string; taskId?: string } | undefined;
  if (!result) return { kind: `error ${(answer?.error as { code?: unknown })?.code}` };
  return { kind: result.resultType ?? 'complete', taskId: result.taskId };
}

function count(outcomes: Outcome[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const { kind } of outcomes) tally[kind] = (tally[kind] ?? 0) + 1;
  return tally;
}

/** Polls the newcomer's task until it leaves `working` (bounded: 200 polls, 50 ms apart). */
async function settle(mcpUrl: string, taskId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const answer = await send(mcpUrl, NEWCOMER, 'tasks/get', { taskId });
    const status = (answer?.result as { status?: string } | undefined)?.status;
    if (status !== 'working') return status ?? 'error';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'working';
}

export async function taskFlood(mcpUrl: string, extra: number): Promise<TaskFlood> {
  const quota = DEFAULTS.tasks.maxActivePerPrincipal;
  // Long sleeps hold the quota through the rest of the attack; the later ones are short, so
  // when they run as plain calls they end at once.
  const held = await pool(quota, 8, () => sleepCall(mcpUrl, ATTACKER, 600_000));
  const past = await pool(extra, 4, () => sleepCall(mcpUrl, ATTACKER, 10));
  const mine = await sleepCall(mcpUrl, NEWCOMER, 10);
  const newcomer = mine.taskId ? await settle(mcpUrl, mine.taskId) : mine.kind;
  const ids = held.flatMap((outcome) => (outcome.taskId ? [outcome.taskId] : []));
  // The acknowledgement carries no status (2026-07-28); the record says whether it ended.
  const states = await pool(ids.length, 8, async (i) => {
    await send(mcpUrl, ATTACKER, 'tasks/cancel', { taskId: ids[i] });
    const got = await send(mcpUrl, ATTACKER, 'tasks/get', { taskId: ids[i] });
    return (got?.result as { status?: string } | undefined)?.status;
  });
  const cancelled = states.filter((status) => status === 'cancelled').length;
  return { held: count(held), past: count(past), newcomer, cancelled };
}
