/**
 * The tasks load loop: 2025-11-25 tasks on one legacy session, as the official SDK's
 * `client.experimental.tasks` drives them. One iteration = `tools/call task-echo` with
 * `params.task` (answered at once with the task), `tasks/get` until the task is `completed`, then
 * `tasks/result` (its echo checked). `connections` loops run at once on keep-alive connections,
 * each with its own JSON-RPC ids; polls follow each other without a pause, so the figure is what
 * the server can serve, not a client's poll interval. autocannon cannot branch on an answer, hence
 * a loop of its own (node:http, like autocannon's one client thread).
 */
import { Agent } from 'node:http';
import { legacyMessage } from '@edge-mcp/test-kit';
import type { DriverResult, DriverRun, LoadDriver } from './driver.ts';
import { httpRequest, jsonRpcOf } from './http.ts';
import { legacyPostHeaders, openSession } from './mcp.ts';
import type { RunningTarget } from './spawn.ts';
import { percentile } from './stats.ts';

/** The task tool of src/entries/edge-tools-tasks.ts (not imported: it loads the core and zod). */
const TASK_TOOL = 'task-echo';

interface Rpc {
  result?: {
    task?: { taskId: string; status: string };
    status?: string;
    content?: [{ text?: string }];
  };
  error?: unknown;
}

export function tasksDriver(version: string): LoadDriver {
  return { start: (server) => startTasks(server, version) };
}

/** The session every loop shares: JSON-RPC ids go up across all of them. */
interface TaskSession {
  url: string;
  headers: Record<string, string>;
  lastId: number;
  /** Whether any answer came as SSE. */
  sse: boolean;
}

async function rpc(
  session: TaskSession,
  agent: Agent,
  method: string,
  params: Record<string, unknown>,
): Promise<Rpc> {
  const body = JSON.stringify(legacyMessage(method, params, ++session.lastId));
  // Sent with its length, as a client sends a JSON body (not chunked).
  const headers = { ...session.headers, 'content-length': String(Buffer.byteLength(body)) };
  const answer = await httpRequest(session.url, { method: 'POST', headers, body, agent });
  session.sse ||= String(answer.headers['content-type']).startsWith('text/event-stream');
  const message = jsonRpcOf(answer) as Rpc;
  if (answer.status !== 200 || !message?.result) {
    throw new Error(`${method}: ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  return message;
}

/** One task, start to result; resolves with the polls it took, rejects on a wrong answer. */
async function iteration(session: TaskSession, agent: Agent): Promise<number> {
  const created = await rpc(session, agent, 'tools/call', {
    name: TASK_TOOL,
    arguments: { text: 'hello' },
    task: { ttl: 60_000 },
  });
  const task = created.result?.task;
  if (!task) throw new Error(`tools/call did not create a task: ${JSON.stringify(created)}`);
  // Every iteration polls at least once, as a client that was told `working` does.
  let polls = 0;
  let status = task.status;
  do {
    status =
      (await rpc(session, agent, 'tasks/get', { taskId: task.taskId })).result?.status ?? 'missing';
    polls++;
    if (status !== 'completed' && status !== 'working') {
      throw new Error(`task ${task.taskId} ended ${status}`);
    }
  } while (status !== 'completed');
  const result = await rpc(session, agent, 'tasks/result', { taskId: task.taskId });
  if (result.result?.content?.[0]?.text !== 'hello') {
    throw new Error(`tasks/result: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return polls;
}

/** `connections` loops of iterations for `duration` seconds, each on its own socket. */
async function loadTasks(
  session: TaskSession,
  duration: number,
  connections: number,
): Promise<DriverResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let polls = 0;
  let failed = 0;
  const errors: Record<string, number> = {};
  const started = performance.now();
  const until = started + duration * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        // Awaited first: `polls += await …` would add to the value read before the await.
        const taken = await iteration(session, agent);
        polls += taken;
        latencies.push(performance.now() - t0);
      } catch (error) {
        failed++;
        const key = String(error instanceof Error ? error.message : error).slice(0, 60);
        errors[key] = (errors[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failed > 0) console.error(`tasks: ${failed} iterations failed`, errors);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rps: sorted.length / seconds,
    p50: Math.round(percentile(sorted, 50)) || 0,
    p99: Math.round(percentile(sorted, 99)) || 0,
    ok: sorted.length,
    failed,
    seconds,
    statuses: { completed: sorted.length, ...errors },
    perCall: { tasksGetPerTask: sorted.length > 0 ? polls / sorted.length : 0 },
  };
}

async function startTasks(server: RunningTarget, version: string): Promise<DriverRun> {
  const sessionId = await openSession(server.mcpUrl, version);
  const session: TaskSession = {
    url: server.mcpUrl,
    headers: { ...legacyPostHeaders(version, sessionId), ...server.headers },
    lastId: 0,
    sse: false,
  };

  const checkAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await iteration(session, checkAgent);
  } finally {
    checkAgent.destroy();
  }

  return {
    answer: session.sse ? 'sse' : 'json',
    load: ({ duration, connections }) => loadTasks(session, duration, connections),
  };
}
