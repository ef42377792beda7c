/**
 * A flood from another principal, for the fairness measure: a forked process
 * (src/lib/flood-child.ts) that sends modern echo calls open-loop at `rate` from its own loopback
 * address, started and stopped over IPC (`ready`, then `start` → `started`, `stop` → `stopped`
 * with its counts, `exit`). It is its own process group, so its CPU time reads like a target's.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_DIR } from './paths.ts';
import { kill } from './spawn.ts';
import { groupCpuMs } from './system.ts';

export type FloodCommand = { type: 'start' } | { type: 'stop' } | { type: 'exit' };
export type FloodReply =
  | { type: 'ready' }
  | { type: 'started' }
  | { type: 'stopped'; sent: number; statuses: Record<string, number> };

export interface FloodOptions {
  url: string;
  rate: number;
  localAddress: string;
  sockets: number;
}

export interface Flood {
  start(): Promise<void>;
  /** Stops sending, waits for the answers in flight, and reports what it sent and got back. */
  stop(): Promise<{ sent: number; statuses: Record<string, number> }>;
  /** CPU time (ms) the process has used so far; null without /proc. */
  cpuMs(): number | null;
  exit(): Promise<void>;
}

export async function startFlood(options: FloodOptions): Promise<Flood> {
  const child: ChildProcess = fork(join(BENCH_DIR, 'src', 'lib', 'flood-child.ts'), [], {
    cwd: BENCH_DIR,
    execArgv: ['--import', 'tsx'],
    detached: true,
    env: {
      ...process.env,
      FLOOD_URL: options.url,
      FLOOD_RATE: String(options.rate),
      FLOOD_ADDRESS: options.localAddress,
      FLOOD_SOCKETS: String(options.sockets),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const next = <T extends FloodReply['type']>(type: T) =>
    new Promise<Extract<FloodReply, { type: T }>>((resolve, reject) => {
      const done = (error?: Error, message?: FloodReply) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(message as Extract<FloodReply, { type: T }>);
      };
      const timer = setTimeout(() => done(new Error(`flood: no ${type} within 30 s`)), 30_000);
      const onMessage = (message: FloodReply) => {
        if (message.type === type) done(undefined, message);
      };
      const onExit = () => done(new Error(`flood exited: ${stderr}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ask = <T extends FloodReply['type']>(command: FloodCommand, type: T) => {
    const answer = next(type);
    child.send(command);
    return answer;
  };
  try {
    await next('ready');
  } catch (error) {
    kill(child, 'SIGKILL', true);
    throw error;
  }
  return {
    async start() {
      await ask({ type: 'start' }, 'started');
    },
    async stop() {
      const { sent, statuses } = await ask({ type: 'stop' }, 'stopped');
      return { sent, statuses };
    },
    cpuMs: () => groupCpuMs(child.pid!),
    async exit() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const timer = setTimeout(() => kill(child, 'SIGKILL', true), 5000);
      if (child.connected) child.send({ type: 'exit' } satisfies FloodCommand);
      await exited;
      clearTimeout(timer);
    },
  };
}
