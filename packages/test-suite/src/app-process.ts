/**
 * The example apps as processes, as a container or a process manager runs them: `pnpm <script>`
 * in its own process group on a free port, waited for until it listens, and cleaned up by the
 * group (pnpm and whatever it started).
 *
 * @module
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { within } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';

/** The repository's root. */
export const ROOT = join(import.meta.dirname, '..', '..', '..');
/** The example app (`pnpm start`, `start:deno`, `start:bun`, `start:worker`). */
export const SERVER = join(ROOT, 'apps', 'server');

const started = new Set<ChildProcess>();

/** True while any process of `child`'s group (pnpm and what it started) is alive. */
export function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-(child.pid as number), 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The live processes of `child`'s group (zombies left out: an exited helper waiting to be reaped
 * is no process left behind).
 */
function liveInGroup(child: ChildProcess): string[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((row) => row.trim().split(/\s+/))
    .filter(([, pgid, stat]) => Number(pgid) === child.pid && !stat?.startsWith('Z'))
    .map((row) => row.join(' '));
}

/**
 * Resolves with what is still alive of the group once it is empty, or after `ms`. Helpers of the
 * runtime (tsx's esbuild service) end when their parent's pipe closes, a moment after it.
 */
export async function settledGroup(child: ChildProcess, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const live = liveInGroup(child);
    if (live.length === 0 || Date.now() > deadline) return live;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SIGKILLs what is left of every app started so far (each test's `afterEach`). */
export function killStartedApps(): void {
  for (const child of started) {
    if (groupAlive(child)) process.kill(-(child.pid as number), 'SIGKILL');
  }
  started.clear();
}

export interface StartedApp {
  pnpm: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `pnpm <script>` in `cwd` on a free port, in its own group; resolves once the app listens. */
export async function startApp(
  cwd: string,
  script = 'start',
  env: Record<string, string> = {},
  /** What it prints once it serves. */
  ready = 'edge-mcp example serving http://',
): Promise<StartedApp> {
  const port = await freePort();
  const pnpm = spawn('pnpm', [script], {
    cwd,
    // Its own group, so that the test can see (and clean up) everything pnpm started.
    detached: true,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(pnpm);
  let output = '';
  const listening = new Promise<void>((resolve) => {
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(ready)) resolve();
    };
    pnpm.stdout?.on('data', read);
    pnpm.stderr?.on('data', read);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    pnpm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await within(
    Promise.race([
      listening,
      exited.then(() => Promise.reject(new Error(`pnpm ${script} exited:\n${output}`))),
    ]),
    'the app to listen',
    60_000,
  );
  return { pnpm, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}
