/** The start-up targets: process start → first answered `tools/call`, per runtime. */
import { atMost, type Entry, RUNTIME_NAME } from './target-shapes.ts';

/**
 * Process start → first answered `tools/call`, no side channel, no tsx. edge-mcp's targets run as
 * the README runs a server (issue 25): its `server.mjs` (zod tools, without the request log) by
 * its command line, and the same server with JSON Schema tools, both loading the packages
 * installed from the packed tarballs. The zod floor loads the installed zod the same way. The
 * bare handlers have no dependency; the SDK is a bundle (src/startup, esbuild). `spec.entry` is
 * the file in src/startup.
 */
export type StartupTarget = Entry & { runtime: 'node' | 'deno' | 'bun' };

function startupTargets(runtime: 'node' | 'deno' | 'bun'): StartupTarget[] {
  const name = RUNTIME_NAME[runtime];
  const baseline = `${runtime}/bare`;
  const bare = runtime === 'node' ? 'node:http' : `${name}.serve`;
  return [
    {
      id: baseline,
      label: `bare ${bare}`,
      runtime,
      library: 'bare',
      spec: { runtime, entry: runtime === 'node' ? 'bare-node.ts' : 'bare-web.ts' },
    },
    {
      id: `${runtime}/edge-mcp`,
      label: "edge-mcp, the README's server",
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'server.mjs (README)', readme: 'no-log' },
      baseline,
      goals: [
        ...atMost(1.5, `${name}: start-up to first answer vs bare ${bare}`),
        // Bun (issue 25): a zod server starts within 10% of what zod alone costs, so the code the
        // first answer does not need is not evaluated at start-up.
        ...(runtime === 'bun'
          ? atMost(1.1, `${name}: start-up with zod tools vs the zod floor`, `${runtime}/bare-zod`)
          : []),
      ],
    },
    {
      // The bare handler plus zod (load, schemas, JSON Schema export,
      // validation), the floor of any server whose tools are described with zod.
      id: `${runtime}/bare-zod`,
      label: `bare ${bare} + zod (a zod server's floor)`,
      runtime,
      library: 'bare',
      spec: {
        runtime,
        entry: runtime === 'node' ? 'bare-zod-node.ts' : 'bare-zod-web.ts',
        installed: true,
      },
      baseline,
    },
    {
      // The same server with JSON Schema tools, so without zod (a goal on Bun).
      id: `${runtime}/edge-mcp-plain`,
      label: 'edge-mcp, JSON Schema tools (no zod)',
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'edge-plain.ts', installed: true },
      baseline,
      ...(runtime === 'bun'
        ? { goals: atMost(1.5, `${name}: start-up with JSON Schema tools vs bare ${bare}`) }
        : {}),
    },
    {
      id: `${runtime}/sdk-v2`,
      label: 'SDK v2 (bundled)',
      runtime,
      library: 'sdk-v2',
      spec: { runtime, entry: runtime === 'node' ? 'sdk-v2-node.ts' : 'sdk-v2-web.ts' },
      baseline,
    },
  ];
}

export const STARTUP_TARGETS: StartupTarget[] = [
  ...startupTargets('node'),
  ...startupTargets('deno'),
  ...startupTargets('bun'),
];
