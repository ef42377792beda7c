/**
 * The README's smallest server as users run it (issue 25): installed from the packed tarballs,
 * started by the README's command on Node, Deno and Bun (lib/readme-app.ts), judged by the
 * server's CPU time per call against the runtime's bare handler (a req/s ratio near 1 says
 * nothing where the load client saturates first). Without its request log for the protocol
 * goals; as written, with the log, for what the log costs. Spread into THROUGHPUT_TARGETS by
 * src/targets.ts.
 */
import type { ThroughputTarget } from './target-shapes.ts';
import { atLeast, cpuAtMost, LEGACY_SESSION, MODERN, RUNTIME_NAME } from './target-shapes.ts';
import { WORKERD } from './targets-cloudflare.ts';

export function readmeTargets(runtime: 'node' | 'deno' | 'bun'): ThroughputTarget[] {
  const name = RUNTIME_NAME[runtime];
  const server = (readme: 'no-log' | 'as-written') =>
    ({
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'server.mjs (README)', readme },
    }) as const;
  return [
    {
      id: `${runtime}/readme/modern`,
      label: "README's server, modern (no request log)",
      ...server('no-log'),
      ...MODERN,
      baseline: `${runtime}/bare`,
      goals: cpuAtMost(1.2, `${name}: CPU per modern tools/call, the README's server vs bare`),
    },
    {
      id: `${runtime}/readme/legacy-session`,
      label: "README's server, legacy on one session (no request log)",
      ...server('no-log'),
      ...LEGACY_SESSION,
      baseline: `${runtime}/bare`,
      goals: cpuAtMost(1.3, `${name}: CPU per legacy tools/call, the README's server vs bare`),
    },
    {
      id: `${runtime}/readme-log/modern`,
      label: "README's server as written (its request log on), modern",
      ...server('as-written'),
      ...MODERN,
      baseline: `${runtime}/readme/modern`,
      goals: cpuAtMost(1.1, `${name}: the README's request log, CPU per call with it vs without`),
    },
  ];
}

/**
 * The README's Worker as written (`createSessionWorker`, zod tools, its wrangler.jsonc) under
 * `wrangler dev`: 2026-07-28 in the isolate against a bare Worker, and a legacy session in its
 * Durable Object against `agents`' McpAgent (un-instrumented in these runs), on what Cloudflare
 * bills (CPU per call) and on req/s. Appended after the `agents` targets.
 */
export function readmeWorkerTargets(): ThroughputTarget[] {
  const spec = { runtime: 'workerd', entry: 'worker.ts (README)', readme: 'as-written' } as const;
  const agents = 'workerd/agents/legacy-session';
  return [
    {
      id: 'workerd/readme/modern',
      label: "README's Worker, modern (createSessionWorker, wrangler dev)",
      ...WORKERD,
      library: 'edge-mcp',
      spec,
      ...MODERN,
      baseline: 'workerd/bare',
      goals: atLeast(0.9, "workerd: modern tools/call, the README's Worker vs a bare Worker"),
    },
    {
      id: 'workerd/readme/legacy-session',
      label: "README's Worker, legacy on one Durable Object session (wrangler dev)",
      ...WORKERD,
      library: 'edge-mcp',
      spec,
      ...LEGACY_SESSION,
      baseline: 'workerd/bare-do',
      goals: [
        ...atLeast(
          1.5,
          "workerd: legacy calls per second, the README's Worker vs McpAgent",
          agents,
        ),
        ...cpuAtMost(0.5, "workerd: CPU per legacy call, the README's Worker vs McpAgent", agents),
      ],
    },
  ];
}
