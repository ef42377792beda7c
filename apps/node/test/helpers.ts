import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const VERSION = '2026-07-28';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

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
    ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'main.ts')],
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

export function modernInit(
  method: string,
  params: Record<string, unknown>,
  id: number | string,
  extra: Record<string, unknown> = {},
): RequestInit {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
  return {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  };
}

/** Yields parsed SSE messages from a response body as they arrive. */
export async function* sseMessages(response: Response): AsyncGenerator<Record<string, any>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data.trim()) yield JSON.parse(data);
      end = buffer.indexOf('\n\n');
    }
  }
}
