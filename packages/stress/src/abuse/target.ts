/**
 * The server the abuse mode attacks: the repository's example app, started as its `start`
 * scripts start it on each runtime, with a small heap (`--max-old-space-size`; Bun's JavaScriptCore
 * has no hard heap limit, so it is told the machine has that much memory, which sizes its heap,
 * and its RSS is bounded by the run instead). Its `/health` answers the handler's counters.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bunBinary, denoBinary, freePort } from '@edge-mcp/test-kit/node';

export type Runtime = 'node' | 'deno' | 'bun';

/** The example app, which `pnpm start`, `start:deno` and `start:bun` run. */
const SERVER = join(import.meta.dirname, '..', '..', '..', '..', 'apps', 'server');
const PACKAGE = join(import.meta.dirname, '..', '..');

export interface AbuseTarget {
  readonly runtime: Runtime;
  readonly url: string;
  readonly mcpUrl: string;
  readonly pid: number;
  /** Whether the server process is still running. */
  alive(): boolean;
  /** Exit code or signal, once it exited. */
  readonly exit: Promise<string>;
  /** The handler's counters (`/health`). */
  health(): Promise<Record<string, number | boolean | string>>;
  /** The largest RSS seen by `sampleRss()`, MiB. */
  peakRssMib(): number;
  /** Reads the server's RSS now (kept for `peakRssMib`). */
  sampleRss(): number;
  /** What it printed to stderr (the request log) and stdout. */
  output(): string;
  stop(): Promise<void>;
}

/** The command the runtime's app is started with, plus the heap limit. */
function command(runtime: Runtime, heapMib: number): { cmd: string; args: string[]; cwd: string } {
  switch (runtime) {
    case 'node':
      // `pnpm start`: node --import tsx src/node.ts in apps/server.
      return {
        cmd: process.execPath,
        args: [`--max-old-space-size=${heapMib}`, '--import', 'tsx', 'src/node.ts'],
        cwd: SERVER,
      };
    case 'deno':
      return {
        cmd: denoBinary(PACKAGE),
        args: [
          'run',
          '--allow-net',
          '--allow-env',
          '--unstable-no-legacy-abort',
          `--v8-flags=--max-old-space-size=${heapMib}`,
          'src/deno.ts',
        ],
        cwd: SERVER,
      };
    case 'bun':
      return { cmd: bunBinary(PACKAGE), args: ['run', 'src/bun.ts'], cwd: SERVER };
  }
}

export async function startTarget(runtime: Runtime, heapMib: number): Promise<AbuseTarget> {
  const port = await freePort();
  const { cmd, args, cwd } = command(runtime, heapMib);
  const child: ChildProcess = spawn(cmd, args, {
    cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      BUN_JSC_forceRAMSize: String(heapMib * 1024 * 1024),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Only the tail: the request log of a long run is large.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exit = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
  );
  let exited = false;
  void exit.then(() => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the ${runtime} example exited before it listened:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the ${runtime} example did not listen:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let peak = 0;
  const pid = child.pid as number;
  const sampleRss = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kib / 1024);
      return kib / 1024;
    } catch {
      return 0;
    }
  };
  return {
    runtime,
    url,
    mcpUrl: `${url}/mcp`,
    pid,
    alive: () => !exited,
    exit,
    health: async () => (await (await fetch(`${url}/health`)).json()) as Record<string, number>,
    peakRssMib: () => peak,
    sampleRss,
    output: () => output,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
