import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { within } from '@edge-mcp/test-kit';
import { freePort, startChild } from '@edge-mcp/test-kit/node';

type LogLine = Record<string, unknown>;

export interface AppProcess {
  child: ChildProcess;
  url: string;
  /** Request-log lines written so far (parsed). */
  readonly log: LogLine[];
  /** Resolves with the first log line matching `predicate` (already written lines count). */
  waitForLog(predicate: (line: LogLine) => boolean, ms?: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A stderr line of the request log, parsed; undefined for any other line (or one cut short). */
function logLine(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

/** Starts `pnpm start`'s entry as a child process on a free port and waits until it listens. */
export async function startApp(): Promise<AppProcess> {
  const port = await freePort();
  const app = startChild(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'node.ts')],
    { cwd: join(import.meta.dirname, '..'), env: { PORT: String(port), HOST: '127.0.0.1' } },
  );
  try {
    await within(app.errLine('serving http://'), 'the app to listen', 30_000);
  } catch (error) {
    // A child that never listens is killed, not left behind by a failing test.
    app.child.kill('SIGKILL');
    throw error;
  }
  const matching = (predicate: (line: LogLine) => boolean) => (line: string) => {
    const parsed = logLine(line);
    return parsed !== undefined && predicate(parsed);
  };
  return {
    child: app.child,
    url: `http://127.0.0.1:${port}`,
    get log() {
      return app
        .stderr()
        .split('\n')
        .flatMap((line) => {
          const parsed = logLine(line);
          return parsed ? [parsed] : [];
        });
    },
    async waitForLog(predicate, ms = 10_000) {
      const what = 'a matching request-log line';
      return logLine(await within(app.errLine(matching(predicate), what), what, ms)) as LogLine;
    },
    exited: app.exited,
  };
}
