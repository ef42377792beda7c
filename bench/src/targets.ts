/** Every target of the run: which process serves it and which scenarios run against it. */
import type { Era } from './lib/mcp.ts';
import type { Runtime, TargetSpec } from './lib/spawn.ts';

export type Library = 'bare' | 'edge-mcp' | 'sdk-v2' | 'sdk-v1' | 'mcp-lite';

export interface Scenario {
  id: string;
  label: string;
  library: Library;
  era: Era;
  /** Legacy: initialize once and reuse the session id for every call. */
  session: boolean;
  /** Protocol revision of legacy calls. */
  version: string;
}

export interface ProcessTarget {
  runtime: Runtime;
  spec: TargetSpec;
  scenarios: Scenario[];
}

export const LEGACY = '2025-11-25';
const LITE = '2025-06-18';

function scenario(
  id: string,
  label: string,
  library: Library,
  era: Era,
  session = false,
  version = LEGACY,
): Scenario {
  return { id, label, library, era, session, version };
}

const node = (entry: string, mode?: string): TargetSpec => ({
  runtime: 'node',
  entry,
  env: mode ? { MODE: mode } : {},
});

export const THROUGHPUT: ProcessTarget[] = [
  {
    runtime: 'node',
    spec: node('node-bare.ts'),
    scenarios: [scenario('node/bare', 'bare node:http', 'bare', 'modern')],
  },
  {
    runtime: 'node',
    spec: node('node-edge.ts'),
    scenarios: [
      scenario('node/edge-mcp/modern', 'edge-mcp modern', 'edge-mcp', 'modern'),
      scenario(
        'node/edge-mcp/legacy-session',
        'edge-mcp legacy, one session',
        'edge-mcp',
        'legacy',
        true,
      ),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-edge-hono.ts'),
    scenarios: [
      scenario('node/edge-mcp-hono/modern', 'edge-mcp modern in a Hono app', 'edge-mcp', 'modern'),
      scenario(
        'node/edge-mcp-hono/legacy-session',
        'edge-mcp legacy in a Hono app',
        'edge-mcp',
        'legacy',
        true,
      ),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-sdk-v2.ts', 'handler'),
    scenarios: [
      scenario('node/sdk-v2/modern', 'SDK v2 modern', 'sdk-v2', 'modern'),
      scenario('node/sdk-v2/legacy-stateless', 'SDK v2 legacy, stateless', 'sdk-v2', 'legacy'),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-sdk-v2.ts', 'session'),
    scenarios: [
      scenario(
        'node/sdk-v2/legacy-session',
        'SDK v2 legacy, one session',
        'sdk-v2',
        'legacy',
        true,
      ),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-sdk-v1.ts', 'stateless'),
    scenarios: [scenario('node/sdk-v1/legacy-stateless', 'SDK v1 stateless', 'sdk-v1', 'legacy')],
  },
  {
    runtime: 'node',
    spec: node('node-sdk-v1.ts', 'session'),
    scenarios: [
      scenario('node/sdk-v1/legacy-session', 'SDK v1 one session', 'sdk-v1', 'legacy', true),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-mcp-lite.ts', 'stateless'),
    scenarios: [
      scenario(
        'node/mcp-lite/legacy-stateless',
        'mcp-lite stateless',
        'mcp-lite',
        'legacy',
        false,
        LITE,
      ),
    ],
  },
  {
    runtime: 'node',
    spec: node('node-mcp-lite.ts', 'session'),
    scenarios: [
      scenario(
        'node/mcp-lite/legacy-session',
        'mcp-lite one session',
        'mcp-lite',
        'legacy',
        true,
        LITE,
      ),
    ],
  },
  ...(['deno', 'bun'] as const).map((runtime) => ({
    runtime,
    spec: { runtime, entry: `${runtime}-bare.ts` },
    scenarios: [
      scenario(
        `${runtime}/bare`,
        `bare ${runtime === 'deno' ? 'Deno' : 'Bun'}.serve`,
        'bare',
        'modern',
      ),
    ],
  })),
  ...(['deno', 'bun'] as const).map((runtime) => ({
    runtime,
    spec: { runtime, entry: `${runtime}-edge.ts` },
    scenarios: [
      scenario(`${runtime}/edge-mcp/modern`, 'edge-mcp modern', 'edge-mcp', 'modern'),
      scenario(
        `${runtime}/edge-mcp/legacy-session`,
        'edge-mcp legacy, one session',
        'edge-mcp',
        'legacy',
        true,
      ),
    ],
  })),
];

export interface SessionTarget {
  id: string;
  label: string;
  spec: TargetSpec;
  version: string;
}

/** Targets with legacy sessions, for idle-session memory and initialize/s. */
export const SESSION_TARGETS: SessionTarget[] = [
  {
    id: 'node/bare-initialize',
    label: 'bare initialize (keeps nothing)',
    spec: { runtime: 'node', entry: 'node-bare-initialize.ts' },
    version: LEGACY,
  },
  {
    id: 'node/edge-mcp',
    label: 'edge-mcp',
    spec: { runtime: 'node', entry: 'node-edge.ts', env: { MAX_SESSIONS: '1000000' } },
    version: LEGACY,
  },
  { id: 'node/sdk-v1', label: 'SDK v1', spec: node('node-sdk-v1.ts', 'session'), version: LEGACY },
  {
    id: 'node/sdk-v2',
    label: 'SDK v2 (sessionful transport)',
    spec: node('node-sdk-v2.ts', 'session'),
    version: LEGACY,
  },
  {
    id: 'node/mcp-lite',
    label: 'mcp-lite',
    spec: node('node-mcp-lite.ts', 'session'),
    version: LITE,
  },
];

export const DISCONNECT_TARGETS: { runtime: Runtime; spec: TargetSpec }[] = [
  { runtime: 'node', spec: node('node-edge.ts') },
  { runtime: 'deno', spec: { runtime: 'deno', entry: 'deno-edge.ts' } },
  { runtime: 'bun', spec: { runtime: 'bun', entry: 'bun-edge.ts' } },
];
