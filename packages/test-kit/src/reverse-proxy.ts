/**
 * Real reverse proxies for tests: Debian's nginx and HAProxy on a free loopback port, each with a
 * directory of its own, in the foreground as a child of the test (nginx as one process, no
 * daemon, no master), stopped by its pid. The caller gives the configuration users write (an
 * nginx `server` block with its `upstream`, HAProxy's `defaults`/`frontend`/`backend`); the kit
 * adds only what a process needs to run unprivileged in a temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReverseProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** What the proxy printed (its error log), for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after 2 s; removes the directory. */
  stop(): Promise<void>;
}

/**
 * nginx with `site` (an `http`-level configuration: `upstream` and `server` blocks) inside a
 * minimal main configuration. `site` must listen on `port`.
 */
export function startNginx(site: string, port: number): Promise<ReverseProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-nginx-'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `  ${name}_temp_path ${join(dir, name)};`)
    .join('\n');
  const config = [
    'daemon off;',
    'master_process off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'error_log stderr notice;',
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    temp,
    site,
    '}',
  ].join('\n');
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, config);
  const binary = process.env.NGINX || '/usr/sbin/nginx';
  return launch(binary, ['-p', dir, '-e', 'stderr', '-c', file], dir, port, config);
}

/** HAProxy with `config` (`defaults`, `frontend`, `backend` sections); it must bind `port`. */
export function startHaproxy(config: string, port: number): Promise<ReverseProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-haproxy-'));
  const full = [
    'global',
    '  maxconn 8192',
    `  pidfile ${join(dir, 'haproxy.pid')}`,
    '',
    config,
  ].join('\n');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, full);
  const binary = process.env.HAPROXY || '/usr/sbin/haproxy';
  // -db: in the foreground, no daemon: one process the test stops by its pid.
  return launch(binary, ['-db', '-f', file], dir, port, full);
}

const live = new Set<ChildProcess>();
let exitHook = false;

async function launch(
  binary: string,
  args: string[],
  dir: string,
  port: number,
  config: string,
): Promise<ReverseProxy> {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const child of live) child.kill('SIGKILL');
    });
  }
  const child = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const failed = () =>
    new Error(`${binary} did not come up on port ${port}:\n${output}\nconfiguration:\n${config}`);
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw failed();
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid as number,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something accepts TCP connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
