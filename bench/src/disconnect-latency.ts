/**
 * Probe: client disconnect → handler abort latency of edge-mcp on Node, Deno and Bun, over real
 * sockets (`pnpm --filter @edge-mcp/bench disconnect`). The same measure `pnpm bench` runs; see
 * measures/disconnect.ts for the method. DROPS (default 200) and BENCH_RUNTIMES select.
 */
import { runDisconnect } from './measures/disconnect.ts';
import { DISCONNECT_TARGETS } from './targets.ts';

const drops = Number(process.env.DROPS ?? process.env.BENCH_DROPS ?? 200);
const runtimes = process.env.BENCH_RUNTIMES?.split(',');

for (const target of DISCONNECT_TARGETS) {
  if (runtimes && !runtimes.includes(target.runtime)) continue;
  const row = await runDisconnect(target.spec, drops);
  console.log(
    JSON.stringify({
      probe: 'disconnect-to-abort',
      runtime: target.runtime,
      drops: row.drops,
      failures: row.failures,
      p50ms: row.p50Ms.toFixed(2),
      p99ms: row.p99Ms.toFixed(2),
      maxms: row.maxMs.toFixed(2),
    }),
  );
}
