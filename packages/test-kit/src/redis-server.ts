/**
 * A real `redis-server` for tests: Debian's binary on a free loopback port, with a data directory
 * of its own, in the foreground as a child of the test (no daemon), stopped by its pid. Each call
 * starts a separate server, so test files never share one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface RedisServerOptions {
  /** Append-only file on (`--appendonly yes --appendfsync everysec`): data survives `restart()`. */
  persist?: boolean;
  /** More `redis-server` arguments (`['--maxmemory-policy', 'allkeys-lru']`). */
  args?: readonly string[];
  /** How long to wait for the first `PONG` @default 10000 */
  readyMs?: number;
  /** The binary @default process.env.REDIS_SERVER ?? '/usr/bin/redis-server' */
  binary?: string;
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The server's working directory (its AOF when `persist`), removed by `stop()`. */
  readonly dir: string;
  /** The running server's pid (a new one after `restart()`). */
  readonly pid: number;
  /** Everything the server printed (its log), for failure messages. */
  output(): string;
  /** Graceful stop (SIGTERM: the AOF is flushed), then a start on the same port and directory. */
  restart(): Promise<void>;
  /** SIGKILL, without a restart: what a crash does. `start()` brings it back. */
  kill(): Promise<void>;
  /** Starts the server again after `kill()` (same port and directory). */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing (a hung Redis). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** SIGTERM (SIGKILL after 5 s) and removes the directory. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_BINARY = '/usr/bin/redis-server';
/** Servers still running, killed if the test process exits without stopping them. */
const live = new Set<ChildProcess>();
let exitHook = false;

function binaryOf(options: RedisServerOptions): string {
  const binary = options.binary ?? process.env.REDIS_SERVER ?? DEFAULT_BINARY;
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(
      `${binary} is missing: install redis-server (Debian's package; \`pnpm test\` installs it with scripts/system-deps.mjs), or set REDIS_SERVER`,
    );
  }
  return binary;
}

/** One `PING` on a fresh connection: true on `+PONG` (not while the AOF loads: `-LOADING`). */
export function pingRedis(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Starts a `redis-server` on a free loopback port; resolves once it answers `PING`. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = binaryOf(options);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.persist ? 'yes' : 'no',
    '--appendfsync',
    'everysec',
    '--daemonize',
    'no',
    '--logfile',
    '',
    ...(options.args ?? []),
  ];
  const readyMs = options.readyMs ?? 10_000;
  let child: ChildProcess | undefined;
  let output = '';
  let stopped = false;

  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const server of live) if (server.pid !== undefined) signal(server, 'SIGKILL');
    });
  }

  const launch = async (): Promise<void> => {
    const started = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    live.add(started);
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    started.once('exit', () => live.delete(started));
    const spawned = new Promise<void>((resolve, reject) => {
      started.once('spawn', resolve);
      started.once('error', reject);
    });
    await spawned;
    const deadline = Date.now() + readyMs;
    for (;;) {
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`redis-server on port ${port} exited before it was ready:\n${output}`);
      if (await pingRedis(port, 500)) return;
      if (Date.now() > deadline) {
        await halt(started, 'SIGKILL');
        throw new Error(
          `redis-server on port ${port} did not answer PING in ${readyMs} ms:\n${output}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  await launch().catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });

  const current = (): ChildProcess => {
    if (child === undefined) throw new Error('redis-server was never started');
    return child;
  };

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get pid() {
      return current().pid as number;
    },
    output: () => output,
    async restart() {
      await halt(current(), 'SIGTERM');
      await launch();
    },
    async kill() {
      await halt(current(), 'SIGKILL');
    },
    async start() {
      if (running(current())) throw new Error('redis-server is running: stop or kill it first');
      await launch();
    },
    pause() {
      signal(current(), 'SIGSTOP');
    },
    resume() {
      signal(current(), 'SIGCONT');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child) await halt(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(child.pid, name);
  } catch {
    // already gone
  }
}

/** Sends `name` to the server (SIGKILL after 5 s) and waits for it to exit. */
async function halt(child: ChildProcess, name: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A paused server handles SIGTERM only once it runs again.
  signal(child, 'SIGCONT');
  signal(child, name);
  const timer = setTimeout(() => signal(child, 'SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
