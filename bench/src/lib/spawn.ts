/**
 * Starts one target as a child process on 127.0.0.1 (its own process group), waits for its side
 * channel, and stops it by pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@edge-mcp/test-kit/node';
import { getJson, sleep } from './http.ts';
import { BENCH_DIR, bunBinary, denoBinary } from './paths.ts';

export type Runtime = 'node' | 'deno' | 'bun';

/** The node binary of the Node targets (BENCH_NODE), by default the one running the bench. */
export const NODE_BINARY = process.env.BENCH_NODE || process.execPath;

export interface TargetSpec {
  runtime: Runtime;
  /** File in src/entries. */
  entry: string;
  env?: Record<string, string>;
}

export interface RunningTarget {
  pid: number;
  url: string;
  mcpUrl: string;
  sideUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** SIGTERM to the server's pid, SIGKILL to its group if it has not exited after 5 s. */
  stop(): Promise<void>;
}

function command(spec: TargetSpec): [string, string[]] {
  const entry = `src/entries/${spec.entry}`;
  switch (spec.runtime) {
    case 'node':
      return [NODE_BINARY, ['--expose-gc', '--import', 'tsx', entry]];
    case 'deno':
      return [
        denoBinary(),
        [
          'run',
          '--allow-net',
          '--allow-env',
          '--allow-read',
          '--quiet',
          '--unstable-no-legacy-abort',
          entry,
        ],
      ];
    case 'bun':
      return [bunBinary(), ['run', entry]];
  }
}

export async function startTarget(spec: TargetSpec): Promise<RunningTarget> {
  const port = await freePort();
  const sidePort = await freePort();
  const [file, args] = command(spec);
  const child = spawn(file, args, {
    cwd: BENCH_DIR,
    env: {
      ...process.env,
      ...spec.env,
      PORT: String(port),
      SIDE_PORT: String(sidePort),
      DENO_NO_UPDATE_CHECK: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const sideUrl = `http://127.0.0.1:${sidePort}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${spec.entry} exited early:\n${output}`);
    try {
      await getJson(`${sideUrl}/memory`);
      break;
    } catch {
      if (Date.now() > deadline) {
        kill(child, 'SIGKILL', true);
        throw new Error(`${spec.entry} was not ready in time:\n${output}`);
      }
      await sleep(100);
    }
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    pid: child.pid!,
    url,
    mcpUrl: `${url}/mcp`,
    sideUrl,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      kill(child, 'SIGTERM', false);
      const timer = setTimeout(() => kill(child, 'SIGKILL', true), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function kill(child: ChildProcess, signal: NodeJS.Signals, group: boolean): void {
  try {
    if (group && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}
