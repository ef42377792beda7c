/** autocannon around one request shape: a timed run or a fixed number of requests. */
import autocannon from 'autocannon';
import type { CallShape } from './mcp.ts';

export interface LoadOptions {
  url: string;
  shape: CallShape;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration?: number;
  amount?: number;
}

export interface LoadResult {
  /** Successful (2xx) requests per second. */
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  seconds: number;
  statuses: Record<string, number>;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  let n = 1000;
  const { shape } = options;
  const started = performance.now();
  let last = started;
  const run = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 10 }),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        headers: shape.headers,
        setupRequest: (request) => ({ ...request, body: shape.body(n++) }),
      },
    ],
  });
  // autocannon resolves an `amount` run at its next 1 s sample tick, so time it by its responses.
  if (options.amount) {
    run.on('response', () => {
      last = performance.now();
    });
  }
  const result = await run;
  const seconds = options.amount ? (last - started) / 1000 : result.duration;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  return {
    rps: result['2xx'] / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    seconds,
    statuses,
  };
}
