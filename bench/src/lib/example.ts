/**
 * The example server of apps/server on Node, started as its `pnpm start` runs it
 * (`node --import tsx src/node.ts` in apps/server, configured by its environment: `PORT`,
 * `REDIS_URL`, `MCP_TRUST_PROXY`, …), unchanged: no side channel. What the bench observes of it
 * is what an operator sees: its answers and its request log, one JSON line per finished request
 * on stderr (apps/server/src/example/request-log.ts), handed to `onLine` with its arrival time.
 * Its own process group; stopped by its pid (SIGTERM, SIGKILL to the group after 5 s).
 */
import { EXAMPLE_DIR } from './paths.ts';
import { type ChildExit, kill, NODE_BINARY, spawnChild, stopChild } from './spawn.ts';

/** What the example prints once it listens. */
const READY = 'edge-mcp example serving';
const READY_MS = 60_000;

export interface ExampleInstance {
  pid: number;
  url: string;
  mcpUrl: string;
  /** Calls `listener` with every stderr line from now on and its `performance.now()` arrival. */
  onLine(listener: (line: string, at: number) => void): () => void;
  /** The tail of its stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export async function startExample(
  port: number,
  env: Record<string, string>,
): Promise<ExampleInstance> {
  const { child, exited, output } = spawnChild(
    NODE_BINARY,
    ['--import', 'tsx', 'src/node.ts'],
    { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    EXAMPLE_DIR,
  );
  const listeners = new Set<(line: string, at: number) => void>();
  let partial = '';
  // Ahead of the output's tail keeping: the arrival time is what the cross-cancel measure reads.
  child.stderr?.prependListener('data', (chunk: Buffer) => {
    const at = performance.now();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) for (const listener of listeners) listener(line, at);
  });
  try {
    await ready(listeners, exited);
  } catch (error) {
    kill(child, 'SIGKILL', true);
    await exited;
    throw new Error(`the example server did not start: ${(error as Error).message}\n${output()}`);
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    pid: child.pid!,
    url,
    mcpUrl: `${url}/mcp`,
    onLine(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    output,
    stop: () => stopChild({ child, exited, output }, false),
  };
}

/** Resolves once the example says it serves; rejects when it exits first or takes too long. */
function ready(
  listeners: Set<(line: string, at: number) => void>,
  exited: Promise<ChildExit>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in ${READY_MS} ms`)), READY_MS);
    const listener = (line: string) => {
      if (!line.includes(READY)) return;
      clearTimeout(timer);
      listeners.delete(listener);
      resolve();
    };
    listeners.add(listener);
    void exited.then(({ code, signal }) => reject(new Error(`exited (${code ?? signal})`)));
  });
}
