/**
 * One way to start a test's child process (a runtime running a fixture) and follow its output:
 * stdout line by line, stderr as text, and its exit. Every child started here is killed by
 * `killChildren()` (a test file calls it after each test); a `detached` child gets its own process
 * group, and the whole group is killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Child {
  readonly child: ChildProcess;
  /** Settles when the process has exited and its output is closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every stdout line so far. */
  readonly lines: string[];
  /**
   * Resolves with the first stdout line (seen so far or later) starting with `prefix`, or that
   * `match` accepts (`what` names it when the child exits first).
   */
  line(prefix: string): Promise<string>;
  line(match: (line: string) => boolean, what: string): Promise<string>;
  /**
   * Resolves with the first stderr line (seen so far or later) containing `text`, or that `match`
   * accepts (`what` names it when the child exits first).
   */
  errLine(text: string): Promise<string>;
  errLine(match: (line: string) => boolean, what: string): Promise<string>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /**
   * SIGTERM (to its process group when detached), SIGKILL after 5 s if it is still there;
   * resolves once it has exited. Nothing when it already has.
   */
  stop(): Promise<void>;
}

export interface ChildOptions {
  cwd: string;
  /** Added to this process's environment (with DENO_NO_UPDATE_CHECK and NO_COLOR set). */
  env?: Record<string, string>;
  /** Its own process group, killed as a whole. @default false */
  detached?: boolean;
}

const children = new Set<ChildProcess>();
/** Whether each child was started in its own process group. */
const groups = new WeakMap<ChildProcess, boolean>();

/** Kills every child still running (SIGKILL; its process group when detached). */
export function killChildren(): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      if (groups.get(child)) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {}
  }
  children.clear();
}

/** A waiter's wait ends with the child: it rejects naming what never came. */
function waitFor(
  found: () => string | undefined,
  waiters: Set<() => void>,
  exited: Promise<{ code: number | null }>,
  what: string,
  stderr: () => string,
): Promise<string> {
  const seen = found();
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    // Asked again on every chunk of output until it has its line, then dropped.
    const waiter = () => {
      const line = found();
      if (line === undefined) return;
      waiters.delete(waiter);
      resolve(line);
    };
    waiters.add(waiter);
    void exited.then(({ code }) =>
      reject(new Error(`child exited (${code}) before ${what}; stderr:\n${stderr()}`)),
    );
  });
}

export function startChild(command: string, args: string[], options: ChildOptions): Child {
  const detached = options.detached ?? false;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  groups.set(child, detached);
  children.add(child);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters) waiter();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      lines.push(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const errors = () => stderr;
  const signal = (name: NodeJS.Signals) => {
    try {
      if (detached && child.pid !== undefined) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {}
  };
  return {
    child,
    exited,
    lines,
    line: (match: string | ((line: string) => boolean), what?: string) => {
      const accepts = typeof match === 'string' ? (l: string) => l.startsWith(match) : match;
      const named = typeof match === 'string' ? `"${match}"` : (what as string);
      return waitFor(() => lines.find(accepts), waiters, exited, named, errors);
    },
    errLine: (match: string | ((line: string) => boolean), what?: string) => {
      const accepts = typeof match === 'string' ? (l: string) => l.includes(match) : match;
      const named = typeof match === 'string' ? `"${match}" on stderr` : (what as string);
      return waitFor(() => stderr.split('\n').find(accepts), waiters, exited, named, errors);
    },
    stderr: errors,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
