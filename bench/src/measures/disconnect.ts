/**
 * Disconnect → handler abort over real sockets, on this process's clock: the socket of a
 * streaming `sleep` is destroyed at its first progress bytes (t0), and the `sleep` tool reports
 * its abort on the side channel's `/events` (t1). t1 − t0 is an upper bound (the side channel's
 * own hop is in it). README.md, Method.
 */
import { request } from 'node:http';
import type { Config } from '../config.ts';
import { modernSleepBody, toolCallHeaders } from '../lib/mcp.ts';
import type { RunningTarget, TargetSpec } from '../lib/spawn.ts';
import { latencies } from '../lib/stats.ts';
import type { ProbeTarget } from '../targets.ts';
import { measureRows, series, spreadsOf, sum, withTarget } from './measure.ts';

const TIMEOUT_MS = 5000;
/** Drops before the measured ones; not counted. */
const WARM_UP = 10;

/** Subscribes to the target's abort events; `wait(id)` resolves with the arrival time. */
async function abortEvents(server: RunningTarget) {
  const waiters = new Map<string, (at: number) => void>();
  let buffered = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const req = request(`${server.sideUrl!}/events`, { agent: false });
  req.on('response', (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = performance.now();
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') onReady();
        waiters.get(line)?.(at);
        waiters.delete(line);
      }
    });
  });
  req.on('error', () => {});
  req.end();
  await ready;
  return {
    wait(id: string): Promise<number> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(id);
          reject(new Error(`no abort of ${id} within ${TIMEOUT_MS} ms`));
        }, TIMEOUT_MS);
        waiters.set(id, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () => req.destroy(),
  };
}

function dropOnce(
  server: RunningTarget,
  events: Awaited<ReturnType<typeof abortEvents>>,
  id: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(server.mcpUrl, {
      method: 'POST',
      agent: false,
      headers: toolCallHeaders('sleep'),
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`sleep answered ${res.statusCode}`));
        req.destroy();
        return;
      }
      res.once('data', () => {
        const aborted = events.wait(id);
        const dropped = performance.now();
        req.destroy();
        aborted.then((at) => resolve(at - dropped), reject);
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(modernSleepBody(id, 30_000));
  });
}

/** One series of `drops` drops against a fresh process of `spec`. */
function runDisconnect(spec: TargetSpec, drops: number) {
  return withTarget(spec, async (server) => {
    const events = await abortEvents(server);
    const { values, failures } = await series(WARM_UP, drops, (i, counted) =>
      dropOnce(server, events, `${counted ? 'd' : 'w'}${i}`),
    );
    events.close();
    return { drops, failures, ...latencies(values) };
  });
}

export type DisconnectRow = Awaited<ReturnType<typeof runDisconnectRounds>>[number];

export function runDisconnectRounds(
  targets: readonly ProbeTarget[],
  config: Config,
  log: (line: string) => void,
) {
  return measureRows(targets, config.rounds, log, {
    name: (target) => `disconnect ${target.runtime}:`,
    once: (target) => runDisconnect(target.spec, config.drops),
    describe: (s) =>
      `p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms, ${s.failures} failed  (load ${s.load1.toFixed(2)})`,
    row: (target, samples) => ({
      runtime: target.runtime as string,
      // Drops per round.
      drops: config.drops,
      failures: sum(samples, (s) => s.failures),
      ...spreadsOf(samples, ['p50Ms', 'p99Ms', 'maxMs']),
    }),
  });
}
