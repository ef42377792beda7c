/// <reference path="./autocannon.d.ts" />
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
  let first: number | undefined;
  let responses = 0;
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
  // autocannon resolves an `amount` run at its next 1 s sample tick, so time it by its responses:
  // from the first to the last, which leaves out the generator's own start-up (opening its
  // connections), the same for every target.
  if (options.amount) {
    run.on('response', () => {
      last = performance.now();
      first ??= last;
      responses++;
    });
  }
  const result = await run;
  const measured = first !== undefined && responses > 1 && last > first;
  const seconds = options.amount
    ? (measured ? last - (first as number) : last - started) / 1000
    : result.duration;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  return {
    // With an amount, the first response opens the clock, so it is not counted in the rate.
    rps: (options.amount && measured ? result['2xx'] - 1 : result['2xx']) / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    seconds,
    statuses,
  };
}
