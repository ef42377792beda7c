/**
 * Starts one target as a child process on 127.0.0.1 (its own process group), waits until it is
 * ready, and stops it by pid. Node, Deno and Bun targets also serve the side channel on a second
 * port (ready once it answers); a workerd target is `wrangler dev` on a Worker script (ready once
 * the Worker answers `/health`), with its Durable Object state in a fresh temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import { getJson, httpRequest } from './http.ts';
import { BENCH_DIR, bunBinary, denoBinary, NODE_BINARY, wranglerScript } from './paths.ts';
import {
  type ReadmeVariant,
  readmeApp,
  readmeCommand,
  WORKER_CONFIG,
  WORKER_FILE,
} from './readme-app.ts';
import { messageOf } from './rounds.ts';

export type Runtime = 'node' | 'deno' | 'bun' | 'workerd';

export { NODE_BINARY } from './paths.ts';

/** Something a target needs running next to it (a Redis server…), started before it. */
export interface Service {
  /** Environment the target process gets (e.g. `REDIS_URL`). */
  env: Record<string, string>;
  /** Headers the client sends with every request to the target (e.g. a bearer token). */
  headers?: Record<string, string>;
  stop(): Promise<void>;
}

export interface TargetSpec {
  runtime: Runtime;
  /** File in src/entries (for workerd: the Worker's main module). */
  entry: string;
  /** workerd: the wrangler config in bench/ (its bindings must match the entry's exports). */
  config?: string;
  env?: Record<string, string>;
  /**
   * Starts what the target needs before its process starts (once per process, so every round
   * gets a fresh one too); stopped after the process.
   */
  service?: () => Promise<Service>;
  /**
   * Instead of `entry`: the README's server as a user runs it (lib/readme-app.ts), installed
   * from the packed tarballs, started by the README's command; no side channel (ready once
   * `/healthz` answers). On workerd, the README's Worker under `wrangler dev` with its own
   * config (ready once it answers at all: it has no health route).
   */
  readme?: ReadmeVariant;
  /**
   * Start-up only: the entry is bundled without edge-mcp and zod and run in the README's
   * project, so both load from its node_modules as installed (lib/bundle.ts).
   */
  installed?: boolean;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningTarget {
  pid: number;
  url: string;
  mcpUrl: string;
  /** The side channel (Node, Deno and Bun targets; workerd has none). */
  sideUrl: string | undefined;
  /** The service's client headers (none without a service). */
  headers: Record<string, string>;
  exited: Promise<ChildExit>;
  output(): string;
  /** SIGTERM to the server's pid, SIGKILL to its group if it has not exited after 5 s. */
  stop(): Promise<void>;
}

/** Environment that keeps wrangler offline and quiet. */
export const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_SEND_ERROR_REPORTS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: 'true',
};

/** How Deno and Bun run a module, for the targets and the start-up bundles alike. */
export function runtimeCommand(runtime: 'deno' | 'bun', file: string): [string, string[]] {
  if (runtime === 'bun') return [bunBinary(), ['run', file]];
  const allow = ['--allow-net', '--allow-env', '--allow-read'];
  return [denoBinary(), ['run', ...allow, '--quiet', '--unstable-no-legacy-abort', file]];
}

function command(
  spec: TargetSpec,
  port: number,
  inspectorPort: number,
  state: string | undefined,
): [string, string[]] {
  const readmeWorker = spec.readme !== undefined && spec.runtime === 'workerd';
  const entry = readmeWorker ? WORKER_FILE : `src/entries/${spec.entry}`;
  if (spec.readme && spec.runtime !== 'workerd') return readmeCommand(spec.runtime, spec.readme);
  switch (spec.runtime) {
    case 'node':
      return [NODE_BINARY, ['--expose-gc', '--import', 'tsx', entry]];
    case 'deno':
    case 'bun':
      return runtimeCommand(spec.runtime, entry);
    case 'workerd':
      return [
        process.execPath,
        [
          wranglerScript(),
          'dev',
          entry,
          '--config',
          readmeWorker ? WORKER_CONFIG : (spec.config ?? 'wrangler.jsonc'),
          '--ip',
          '127.0.0.1',
          '--port',
          String(port),
          '--inspector-port',
          String(inspectorPort),
          '--show-interactive-dev-session=false',
          '--log-level',
          'warn',
          '--persist-to',
          state!,
          ...Object.entries(spec.env ?? {}).flatMap(([name, value]) => [
            '--var',
            `${name}:${value}`,
          ]),
        ],
      ];
  }
}

export async function startTarget(spec: TargetSpec): Promise<RunningTarget> {
  const service = await spec.service?.();
  try {
    return await startProcess(spec, service);
  } catch (error) {
    await service?.stop();
    throw error;
  }
}

/** A child process (a target, the example server), its exit and the tail of its output. */
export interface Child {
  child: ChildProcess;
  exited: Promise<ChildExit>;
  output(): string;
}

/** Spawns `file` as its own process group leader, so it can be stopped with its children. */
export function spawnChild(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = BENCH_DIR,
): Child {
  const child = spawn(file, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

/**
 * Polls `ready` (it throws until the target answers) every 100 ms for `ms`; if the process exits
 * first or the time runs out, cleans up and throws with its output.
 */
async function waitUntilReady(
  spec: TargetSpec,
  { child, exited, output }: Child,
  ready: () => Promise<void>,
  ms: number,
  cleanUp: () => Promise<void>,
): Promise<void> {
  const answers = () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('exited early');
    return ready().then(
      () => true,
      () => false,
    );
  };
  try {
    await until(answers, 'it to answer', ms, 100);
  } catch (error) {
    kill(child, 'SIGKILL', true);
    await exited;
    await cleanUp();
    throw new Error(`${spec.entry}: ${messageOf(error)}:\n${output()}`);
  }
}

/** SIGTERM to the child's pid, SIGKILL to its group if it has not exited after 5 s. */
export async function stopChild(
  { child, exited }: Child,
  workerd: boolean,
  cleanUp?: () => Promise<void>,
): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    // wrangler (a wrapper) is stopped with its whole group, so workerd goes with it.
    kill(child, 'SIGTERM', workerd);
    const timer = setTimeout(() => kill(child, 'SIGKILL', true), 5000);
    await exited;
    clearTimeout(timer);
  }
  // What the target started in its group (wrangler's workerd) may outlive it.
  if (workerd) kill(child, 'SIGKILL', true);
  await cleanUp?.();
}

async function startProcess(
  spec: TargetSpec,
  service: Service | undefined,
): Promise<RunningTarget> {
  const workerd = spec.runtime === 'workerd';
  const port = await freePort();
  const sidePort = workerd || spec.readme ? undefined : await freePort();
  const inspectorPort = workerd ? await freePort() : 0;
  const state = workerd ? mkdtempSync(join(tmpdir(), 'edge-mcp-bench-wrangler-')) : undefined;
  const [file, args] = command(spec, port, inspectorPort, state);
  const started = spawnChild(
    file,
    args,
    {
      ...process.env,
      ...spec.env,
      ...service?.env,
      ...(workerd ? WRANGLER_ENV : {}),
      PORT: String(port),
      SIDE_PORT: String(sidePort ?? ''),
      DENO_NO_UPDATE_CHECK: '1',
    },
    spec.readme ? readmeApp() : BENCH_DIR,
  );
  const url = `http://127.0.0.1:${port}`;
  const sideUrl = sidePort === undefined ? undefined : `http://127.0.0.1:${sidePort}`;
  const cleanUp = async () => {
    await service?.stop();
    if (state) rmSync(state, { recursive: true, force: true });
  };
  const ready = async () => {
    if (sideUrl) await getJson(`${sideUrl}/memory`);
    else if (spec.readme && workerd) {
      if ((await httpRequest(`${url}/mcp`)).status >= 500) throw new Error('not ready');
    } else if ((await httpRequest(`${url}${spec.readme ? '/healthz' : '/health'}`)).status !== 200)
      throw new Error('not ready');
  };
  // wrangler bundles the Worker first; under load that takes a while.
  await waitUntilReady(spec, started, ready, workerd ? 120_000 : 60_000, cleanUp);
  return {
    pid: started.child.pid!,
    url,
    mcpUrl: `${url}/mcp`,
    sideUrl,
    headers: service?.headers ?? {},
    exited: started.exited,
    output: started.output,
    stop: () => stopChild(started, workerd, cleanUp),
  };
}

export function kill(child: ChildProcess, signal: NodeJS.Signals, group: boolean): void {
  try {
    if (group && child.pid) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}
