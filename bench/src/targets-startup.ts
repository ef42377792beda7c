/** The start-up targets: process start → first answered `tools/call`, per runtime. */
import { atMost, type Entry, RUNTIME_NAME } from './target-shapes.ts';

/**
 * Process start → first answered `tools/call`, from a bundle as a user ships it (src/startup,
 * bundled by esbuild for the runtime; no side channel, no tsx). `spec.entry` is the file in
 * src/startup.
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
      label: 'edge-mcp',
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'edge.ts' },
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
      spec: { runtime, entry: runtime === 'node' ? 'bare-zod-node.ts' : 'bare-zod-web.ts' },
      baseline,
    },
    {
      // The same server with JSON Schema tools, so without zod (a goal on Bun).
      id: `${runtime}/edge-mcp-plain`,
      label: 'edge-mcp, JSON Schema tools (no zod)',
      runtime,
      library: 'edge-mcp',
      spec: { runtime, entry: 'edge-plain.ts' },
      baseline,
      ...(runtime === 'bun'
        ? { goals: atMost(1.5, `${name}: start-up with JSON Schema tools vs bare ${bare}`) }
        : {}),
    },
    {
      id: `${runtime}/sdk-v2`,
      label: 'SDK v2',
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
