import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { within } from './helpers.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/sse-server.ts', import.meta.url));
const children = new Set<ChildProcess>();

afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

/** Starts the fixture under `node --import tsx` and follows its stdout line by line. */
function startChild(mode: 'graceful' | 'hang') {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode], {
    cwd: packageDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve(line: string): void }> = [];
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => line.startsWith(w.prefix))) waiter.resolve(line);
      newline = buffered.indexOf('\n');
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const line = (prefix: string): Promise<string> => {
    const seen = lines.find((l) => l.startsWith(prefix));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ prefix, resolve });
      void exited.then(({ code }) =>
        reject(new Error(`child exited (${code}) before "${prefix}"; stderr:\n${stderr}`)),
      );
    });
  };
  return { child, exited, line, lines };
}

async function openStream(url: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await within(fetch(url), 'the stream headers');
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  expect(new TextDecoder().decode((await within(reader.read(), 'the first event')).value)).toBe(
    'data: ready\n\n',
  );
  return reader;
}

describe('process lifecycle (child process)', () => {
  test('SIGTERM with an open event stream: the process exits by itself with code 0', async () => {
    const { child, exited, line, lines } = startChild('graceful');
    const url = (await within(line('listening '), 'the child to listen', 15_000)).slice(10);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reader = await openStream(url);

    child.kill('SIGTERM');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 0, signal: null });
    expect(lines).toContain('closing shutdown');
    expect((await within(reader.read(), 'the end of the stream')).done).toBe(true);
  });

  test('a second SIGINT during a stuck shutdown forces exit with 130', async () => {
    const { child, exited, line } = startChild('hang');
    const url = (await within(line('listening '), 'the child to listen', 15_000)).slice(10);
    await openStream(url);

    child.kill('SIGINT');
    await within(line('closing shutdown'), 'the shutdown to start');
    child.kill('SIGINT');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 130, signal: null });
  });
});
