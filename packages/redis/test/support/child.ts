/** Spawns a fixture under Deno or Bun (the real binaries of npm:deno and npm:bun) and reads its output. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { bunBinary, denoBinary } from '@edge-mcp/test-kit/node';
import { afterEach } from 'vitest';
import { until } from '../helpers.ts';

export const PACKAGE_DIR = join(import.meta.dirname, '..', '..');

/** Deno's least-privilege flags: loopback only, and the env names the package needs. */
const DENO_ENV = 'REDIS_URL,REDIS_NAMESPACE,REDIS_DEBUG_MAINTENANCE,REDIS_EMIT_DIAGNOSTICS';

/** The command running `fixture` under each runtime. */
export const RUNTIMES: ReadonlyArray<[string, (fixture: string) => [string, string[]]]> = [
  [
    'deno',
    (fixture) => [
      denoBinary(PACKAGE_DIR),
      ['run', '--allow-net=127.0.0.1', `--allow-env=${DENO_ENV}`, fixture],
    ],
  ],
  ['bun', (fixture) => [bunBinary(PACKAGE_DIR), ['run', fixture]]],
];

export interface Child {
  process: ChildProcess;
  exited: Promise<number | null>;
  line(prefix: string): Promise<string>;
  stderr(): string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export function startChild(command: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(command, args, {
    cwd: PACKAGE_DIR,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const line = (prefix: string) =>
    until(
      () => stdout.split('\n').find((l) => l.startsWith(prefix)),
      `"${prefix}" from ${command}; stderr:\n${stderr}`,
      20_000,
    );
  return { process: child, exited, line, stderr: () => stderr };
}
