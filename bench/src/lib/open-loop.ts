/**
 * An open-loop client: it sends request i at `start + i / rate`, whether or not the earlier ones
 * were answered (a closed loop, like autocannon's, slows down when the server does, and so hides
 * the very delay a latency measure is after). A send that comes late (a busy event loop, a timer
 * that fired late) goes out as soon as the client can, and the schedule does not shift; how late
 * it went is kept as its lag. Each latency is `performance.now()` from the moment the request is
 * handed to node:http (its agent's queue included) to the end of its answer.
 */
import { Agent, request } from 'node:http';
import { within } from '@edge-mcp/test-kit';
import type { CallShape } from './mcp.ts';

export interface OpenLoopOptions {
  url: string;
  shape: CallShape;
  /** Requests per second. */
  rate: number;
  /** Checks the body of a 200 answer; one that fails counts as an error. */
  check?: (body: string) => boolean;
  /** The JSON-RPC id of the first request (ids go up from there). */
  firstId?: number;
}

export interface OpenLoopResult {
  sent: number;
  /** Latency of every answered request (ms), in the order the answers came. */
  latenciesMs: number[];
  /** Answers by status code; `error` for a failed request, `timeout` for one still open at the end. */
  statuses: Record<string, number>;
  /** Requests that failed, were refused (non-200) or failed the check. */
  errors: number;
  /** How late the sends went out against their schedule (ms): the worst one. */
  maxLagMs: number;
  seconds: number;
}

export interface OpenLoop {
  /** Stops sending, waits (up to `drainMs`) for the requests in flight, and reports. */
  stop(drainMs?: number): Promise<OpenLoopResult>;
}

/**
 * Keep-alive sockets bound to `localAddress` (the server's principal, without auth), shared by
 * the runs of one client; at most `maxSockets`, requests beyond wait in the agent's queue, and
 * that wait is in their latency.
 */
export function boundAgent(localAddress: string, maxSockets: number): Agent {
  return new Agent({ keepAlive: true, localAddress, maxSockets });
}

/** The answers so far: `send` adds to it, `stop` reports it. */
interface Tally {
  latenciesMs: number[];
  statuses: Record<string, number>;
  errors: number;
}

const count = (tally: Tally, key: string) => {
  tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
};

/** Sends request `id` and tallies its answer; `settle` runs once it is answered or has failed. */
function send(
  options: OpenLoopOptions,
  agent: Agent,
  id: number,
  tally: Tally,
  settle: () => void,
): void {
  const at = performance.now();
  const fail = () => {
    count(tally, 'error');
    tally.errors++;
    settle();
  };
  const req = request(options.url, { method: 'POST', headers: options.shape.headers, agent });
  req.on('response', (res) => {
    let body = '';
    if (options.check) {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
    } else res.resume();
    res.on('end', () => {
      tally.latenciesMs.push(performance.now() - at);
      const status = res.statusCode ?? 0;
      count(tally, String(status));
      if (status !== 200 || (options.check && !options.check(body))) tally.errors++;
      settle();
    });
    res.on('error', fail);
  });
  req.on('error', fail);
  req.end(options.shape.body(id));
}

export function openLoop(options: OpenLoopOptions, agent: Agent): OpenLoop {
  const { rate } = options;
  const tally: Tally = { latenciesMs: [], statuses: {}, errors: 0 };
  let sent = 0;
  let inFlight = 0;
  let maxLagMs = 0;
  let stopped = false;
  let drained: () => void = () => {};
  const allDrained = new Promise<void>((resolve) => {
    drained = resolve;
  });
  const settle = () => {
    inFlight--;
    if (stopped && inFlight === 0) drained();
  };
  const firstId = options.firstId ?? 1;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    const now = performance.now();
    // Every request whose time has come, the overdue ones included (the loop stays open).
    const due = Math.floor(((now - started) / 1000) * rate) + 1;
    for (; sent < due; sent++) {
      maxLagMs = Math.max(maxLagMs, now - (started + (sent * 1000) / rate));
      inFlight++;
      send(options, agent, firstId + sent, tally, settle);
    }
    timer = setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - performance.now()));
  };
  tick();
  return {
    async stop(drainMs = 10_000) {
      stopped = true;
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (inFlight > 0) await within(allDrained, 'the calls in flight', drainMs).catch(() => {});
      if (inFlight > 0) {
        tally.statuses.timeout = inFlight;
        tally.errors += inFlight;
      }
      const { latenciesMs, statuses, errors } = tally;
      return { sent, latenciesMs, statuses, errors, maxLagMs, seconds };
    },
  };
}
