import { type ChildProcess, spawn } from 'node:child_process';
import { until } from '@edge-mcp/test-kit';
import type { LogLine, Target, TargetCaps } from './types.ts';

/** A target that is a process of its own: its pid, signals, its exit and what it printed. */
export interface SpawnedTarget extends Target {
  readonly pid: number;
  /** Resolves with the exit code (null after a signal) once the process exited. */
  readonly exited: Promise<{ code: number | null }>;
  /** Sends `signal` to the whole process group (`group` false: the server process only). */
  kill(signal: NodeJS.Signals, group?: boolean): void;
  /** Everything the process printed so far. */
  output(): string;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  caps: TargetCaps;
  port: number;
  /** How long the server may take to answer /health. */
  readyMs?: number;
}

/**
 * Starts a server process in its own process group (so wrappers and their children go together),
 * waits until `/health` answers, and returns it as a Target. Output is kept for failure messages.
 */
export async function spawnTarget(options: SpawnOptions): Promise<SpawnedTarget> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(options.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null }>((resolve) =>
    child.once('exit', (code) => resolve({ code })),
  );
  const url = `http://127.0.0.1:${options.port}`;
  const ready = async () => {
    if (child.exitCode !== null) throw new Error(`${options.name} exited before it was ready`);
    return fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false, // not listening yet
    );
  };
  try {
    await until(ready, `${options.name} to answer /health`, options.readyMs ?? 60_000, 100);
  } catch (error) {
    kill(child, 'SIGKILL');
    throw new Error(`${(error as Error).message}:\n${output}`);
  }
  return {
    name: options.name,
    pid: child.pid as number,
    exited,
    kill: (signal: NodeJS.Signals, group = true) => kill(child, signal, group),
    output: () => output,
    url,
    mcpUrl: `${url}/mcp`,
    caps: options.caps,
    log: async () => (await (await fetch(`${url}/__log`)).json()) as LogLine[],
    async shutdown() {
      kill(child, 'SIGTERM', false);
      return exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) {
        // The server is gone; what it started in its group (wrangler's workerd) may not be.
        kill(child, 'SIGKILL');
        return;
      }
      kill(child, 'SIGTERM');
      const timer = setTimeout(() => kill(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
    toString: () => output,
  } as SpawnedTarget;
}

/** Signals the whole group, or only the server process when `group` is false (a real SIGTERM to it). */
function kill(child: ChildProcess, signal: NodeJS.Signals, group = true): void {
  try {
    if (group && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}
