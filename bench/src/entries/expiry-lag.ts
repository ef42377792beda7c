/**
 * How long the idle sweep holds the event loop, seen from inside the server: a 1 ms timer chain
 * whose every tick notes how late it fired. Only the ticks where the handler's `reaped` count
 * moved since the tick before, and the tick after such a one, are kept: they are the turns the
 * sweep ran in (or just after), so a mass expiry is judged on its own turns, not diluted by the
 * quiet ones between sweeps. Web APIs only (every runtime's entry can serve it).
 */
import { latencies } from '../lib/stats.ts';

export interface ExpiryLag {
  /** Ticks kept (the sweep's turns and the ones right after). */
  ticks: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Sessions reaped while sampling. */
  reaped: number;
}

export interface ExpiryLagSampler {
  start(): void;
  stop(): ExpiryLag;
}

export function expiryLagSampler(reaped: () => number): ExpiryLagSampler {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lags: number[] = [];
  let last = 0;
  let seen = 0;
  let first = 0;
  let movedBefore = false;
  const tick = (): void => {
    const now = performance.now();
    const count = reaped();
    const moved = count !== seen;
    if (moved || movedBefore) lags.push(Math.max(0, now - last - 1));
    movedBefore = moved;
    seen = count;
    last = now;
    timer = setTimeout(tick, 1);
  };
  return {
    start() {
      clearTimeout(timer);
      lags = [];
      first = seen = reaped();
      movedBefore = false;
      last = performance.now();
      timer = setTimeout(tick, 1);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      return { ticks: lags.length, ...latencies(lags), reaped: reaped() - first };
    },
  };
}
