/**
 * The example app as a user starts it: apps/server's `pnpm start` command (`node --import tsx
 * src/node.ts`) in its own directory and process group, configured by its environment only.
 */
import { join } from 'node:path';
import { type Child, startChild } from '@edge-mcp/test-kit/node';

const APP = join(import.meta.dirname, '..', '..', '..', '..', 'apps', 'server');

export interface App {
  readonly child: Child;
  /** `http://127.0.0.1:<port>`, where it listens. */
  readonly origin: string;
  /** What it wrote to stderr (its log). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the app on `port` with `env` added to this process's; resolves once it serves. */
export async function startApp(port: number, env: Record<string, string>): Promise<App> {
  const child = startChild(process.execPath, ['--import', 'tsx', 'src/node.ts'], {
    cwd: APP,
    // Its own group: stopped with whatever it started (tsx's esbuild).
    detached: true,
    env: { PORT: String(port), HOST: '127.0.0.1', ...env },
  });
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-(child.child.pid as number), name);
    } catch {
      // the group is gone
    }
  };
  const stop = async (): Promise<void> => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 10_000);
      await child.exited;
      clearTimeout(timer);
    }
    signal('SIGKILL'); // anything of the group that outlived it
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      child.errLine('edge-mcp example serving http://'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the app did not listen in 30 s')), 30_000);
      }),
    ]);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}:\n${child.stderr()}`);
  } finally {
    clearTimeout(timer);
  }
  return { child, origin: `http://127.0.0.1:${port}`, output: () => child.stderr(), stop };
}
