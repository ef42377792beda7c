import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@edge-mcp/test-kit/node';

export interface AppProcess {
  child: ChildProcess;
  url: string;
  /** Request-log lines written so far (parsed). */
  log: Array<Record<string, unknown>>;
  /** Resolves with the next log line matching `predicate` (already written lines count). */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `pnpm start`'s entry as a child process on a free port and waits until it listens. */
export async function startApp(): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'node.ts')],
    {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const log: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let ready: () => void;
  const listening = new Promise<void>((resolve) => {
    ready = resolve;
  });
  let buffer = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.includes('serving http://')) ready();
      if (line.startsWith('{')) log.push(JSON.parse(line));
      newline = buffer.indexOf('\n');
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  // A child that never listens is killed, not left behind by a failing test.
  let readyTimer: ReturnType<typeof setTimeout> | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    readyTimer = setTimeout(() => reject(new Error('the app did not listen within 30 s')), 30_000);
  });
  try {
    await Promise.race([
      listening,
      exited.then(() => Promise.reject(new Error('the app exited before listening'))),
      tooSlow,
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(readyTimer);
  }
  const waitForLog = (predicate: (line: Record<string, unknown>) => boolean, ms = 10_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = log.find(predicate);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error('no matching request-log line'));
      }, ms);
      waiters.add(check);
      check();
    });
  return { child, url: `http://127.0.0.1:${port}`, log, waitForLog, exited };
}
