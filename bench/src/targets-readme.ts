/**
 * The README's smallest server as users run it (issue 25): installed from the packed tarballs,
 * started by the README's command on Node, Deno and Bun (lib/readme-app.ts), judged by the
 * server's CPU time per call against the runtime's bare handler (a req/s ratio near 1 says
 * nothing where the load client saturates first). Without its request log for the protocol
 * goals; as written, with the log, for what the log costs. Spread into THROUGHPUT_TARGETS by
 * src/targets.ts.
 */
import { cpuAtMost, LEGACY_SESSION, MODERN, RUNTIME_NAME } from './target-shapes.ts';
import type { ThroughputTarget } from './target-types.ts';

export function readmeTargets(runtime: 'node' | 'deno' | 'bun'): ThroughputTarget[] {
  const name = RUNTIME_NAME[runtime];
  const bare = `${runtime}/bare`;
  const spec = { runtime, entry: 'server.mjs (README)' } as const;
  return [
    {
      id: `${runtime}/readme/modern`,
      label: "README's server, modern (no request log)",
      runtime,
      library: 'edge-mcp',
      spec: { ...spec, readme: 'no-log' },
      ...MODERN,
      baseline: bare,
      goals: cpuAtMost(1.2, `${name}: CPU per modern tools/call, the README's server vs bare`),
    },
    {
      id: `${runtime}/readme/legacy-session`,
      label: "README's server, legacy on one session (no request log)",
      runtime,
      library: 'edge-mcp',
      spec: { ...spec, readme: 'no-log' },
      ...LEGACY_SESSION,
      baseline: bare,
      goals: cpuAtMost(1.3, `${name}: CPU per legacy tools/call, the README's server vs bare`),
    },
    {
      id: `${runtime}/readme-log/modern`,
      label: "README's server as written (its request log on), modern",
      runtime,
      library: 'edge-mcp',
      spec: { ...spec, readme: 'as-written' },
      ...MODERN,
      baseline: `${runtime}/readme/modern`,
      goals: cpuAtMost(1.1, `${name}: the README's request log, CPU per call with it vs without`),
    },
  ];
}
