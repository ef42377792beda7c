import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A server started from the consumer project, followed line by line on stdout. */
export interface ServerProcess {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first line (seen or still to come) that matches. */
  line(match: (line: string) => boolean, what: string): Promise<string>;
  /** Stops the process group (SIGTERM, SIGKILL after 5 s) and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Spawns `command` in its own process group, so wrappers and children go with it. Rejects if the
 * process exits before `ready` is printed; the stderr tail is in the error.
 */
export async function startServer(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: (line: string) => boolean,
): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    lines.push(text);
    for (const waiter of waiters)
      if (waiter.match(text)) {
        waiters.delete(waiter);
        waiter.resolve(text);
      }
  });
  const line = (match: (line: string) => boolean, what: string): Promise<string> => {
    const seen = lines.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.add({ match, resolve });
      exited.then(() =>
        reject(new Error(`${command} exited before printing ${what}\nstderr: ${stderr}`)),
      );
    });
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const pid = child.pid as number;
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {}
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await line(ready, 'its ready line');
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, lines, line, stop };
}
