import { spawnSync } from 'node:child_process';

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; its output is returned (and shown when it fails). */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Ran {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `run`, throwing with the output when the command fails. */
export function runOk(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Ran {
  const ran = run(command, args, cwd, env);
  if (ran.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${ran.status}\n${ran.stdout}\n${ran.stderr}`,
    );
  return ran;
}
