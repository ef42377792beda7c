/**
 * Cross-instance cancel → abort: two example servers on one `redis-server`; a `sleep` on A, its
 * `notifications/cancelled` POSTed to B, timed from the cancel to A's request-log line saying
 * the call was cancelled by the client (and to the end of A's answer). README.md, Method.
 */
import { Agent } from 'node:http';
import { legacyMessage, within } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import type { Config } from '../config.ts';
import { type ExampleInstance, startExample } from '../lib/example.ts';
import { httpRequest } from '../lib/http.ts';
import { legacyPostHeaders, openSession } from '../lib/mcp.ts';
import { redisClusterService, redisService } from '../lib/services.ts';
import { postStream } from '../lib/sse-stream.ts';
import { latencies } from '../lib/stats.ts';
import { LEGACY } from '../target-shapes.ts';
import type { ExampleTarget } from '../targets-example.ts';
import { measureRows, series, spreadsOf, sum } from './measure.ts';

const WARM_UP = 10;
const TIMEOUT_MS = 5000;

/** A's request-log line for the call `id`, with its arrival time. */
function logLine(instance: ExampleInstance, id: number): Promise<{ line: LogLine; at: number }> {
  return new Promise((resolve, reject) => {
    const off = instance.onLine((text, at) => {
      if (!text.startsWith('{')) return;
      const line = JSON.parse(text) as LogLine;
      if (line.id !== id || line.method !== 'tools/call') return;
      off();
      clearTimeout(timer);
      resolve({ line, at });
    });
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no log line of call ${id} on A within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
  });
}

interface LogLine {
  id?: number;
  method?: string;
  outcome?: string;
  reason?: string;
}

interface Pair {
  a: ExampleInstance;
  b: ExampleInstance;
  session: string;
  /** Keep-alive connection to B, as a client that keeps one. */
  agent: Agent;
}

/** One call on A cancelled through B: both times from the cancel, in ms. */
async function cancelOnce({ a, b, session, agent }: Pair, id: number) {
  const headers = legacyPostHeaders(LEGACY, session);
  const sleep = { name: 'sleep', arguments: { ms: 60_000 }, _meta: { progressToken: id } };
  const call = legacyMessage('tools/call', sleep, id);
  const stream = await postStream(a.mcpUrl, headers, JSON.stringify(call));
  try {
    if (stream.status !== 200) throw new Error(`the call on A answered ${stream.status}`);
    await stream.next((m) => m.method === 'notifications/progress', 'the first progress event');
    const logged = logLine(a, id);
    const cancel = legacyMessage(
      'notifications/cancelled',
      { requestId: id, reason: 'bench' },
      null,
    );
    const sent = performance.now();
    const answer = await httpRequest(b.mcpUrl, {
      method: 'POST',
      headers,
      agent,
      body: JSON.stringify(cancel),
    });
    if (answer.status !== 202) throw new Error(`the cancel on B answered ${answer.status}`);
    const { line, at } = await logged;
    if (line.outcome !== 'cancelled' || line.reason !== 'client-cancel')
      throw new Error(`A logged ${line.outcome} (${line.reason}), not a client cancel`);
    const ended = await within(stream.ended, "the end of A's answer", TIMEOUT_MS);
    return { abortMs: at - sent, endMs: ended - sent };
  } finally {
    stream.close();
  }
}

/** One series of `cancels` cancels on a fresh Redis (or Redis Cluster) and two fresh instances. */
async function runCrossCancel(target: ExampleTarget, cancels: number) {
  const redis = target.redis === 'cluster' ? await redisClusterService() : await redisService();
  const started: ExampleInstance[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Both instances sign 2026-07-28 request state alike, as the docs ask of a cluster.
    const env = { ...redis.env, MCP_REQUEST_STATE_SECRET: 'edge-mcp-bench' };
    const ports = [await freePort(), await freePort()];
    const instances = await Promise.allSettled(ports.map((port) => startExample(port, env)));
    for (const result of instances) if (result.status === 'fulfilled') started.push(result.value);
    const failed = instances.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [a, b] = started as [ExampleInstance, ExampleInstance];
    const session = await openSession(a.mcpUrl, LEGACY);
    const pair = { a, b, session, agent };
    const { values, failures } = await series(WARM_UP, cancels, (i, counted) =>
      cancelOnce(pair, (counted ? 1000 : 1) + i),
    );
    const end = latencies(values.map((sample) => sample.endMs));
    return {
      cancels,
      failures,
      // Cancel sent to B → A's request-log line (the abort), and → the end of A's answer.
      ...latencies(values.map((sample) => sample.abortMs)),
      endP50Ms: end.p50Ms,
      endP99Ms: end.p99Ms,
    };
  } finally {
    agent.destroy();
    await Promise.all(started.map((instance) => instance.stop()));
    await redis.stop();
  }
}

export type CrossCancelRow = Awaited<ReturnType<typeof runCrossCancelRounds>>[number];

export function runCrossCancelRounds(
  targets: readonly ExampleTarget[],
  config: Config,
  log: (line: string) => void,
) {
  return measureRows(targets, config.rounds, log, {
    name: () => 'cross-instance cancel:',
    once: (target) => runCrossCancel(target, config.cancels),
    describe: (s) =>
      `abort on A p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms; answer ended p50 ${s.endP50Ms.toFixed(2)} ms; ${s.failures} failed  (load ${s.load1.toFixed(2)})`,
    row: (_target, samples) => ({
      cancels: config.cancels,
      failures: sum(samples, (s) => s.failures),
      ...spreadsOf(samples, ['p50Ms', 'p99Ms', 'maxMs', 'endP50Ms', 'endP99Ms']),
    }),
  });
}
