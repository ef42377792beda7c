/**
 * Runs test/fixtures/runtime-server.ts under Node, or the real `deno` or `bun` binary, and follows its
 * stdout line by line. Each child gets its own process group (`detached`), killed after each test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bunBinary as bunOf, denoBinary as denoOf } from '@edge-mcp/test-kit/node';
import { afterEach, expect } from 'vitest';
import { within } from './helpers.ts';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const fixture = fileURLToPath(new URL('./fixtures/runtime-server.ts', import.meta.url));
const workspace = join(packageDir, '..', '..');

/** The real Deno binary, of apps/server's devDependency (this package has none of its own). */
export function denoBinary(): string {
  return denoOf(join(workspace, 'apps', 'server'));
}

/** The real Bun binary, of apps/server's devDependency. */
export function bunBinary(): string {
  return bunOf(join(workspace, 'apps', 'server'));
}

export interface Child {
  child: ChildProcess;
  /** Settles when the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first line (seen so far or later) starting with `prefix`. */
  line(prefix: string): Promise<string>;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first stderr line (seen so far or later) containing `text`. */
  errLine(text: string): Promise<string>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** The base URL from the fixture's `listening` line. */
  url(): Promise<string>;
}

const children = new Set<ChildProcess>();

afterEach(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }
  }
  children.clear();
});

/**
 * Starts `command args… fixture mode` in its own process group, with PORT=0 and HOST=127.0.0.1
 * (`env` overrides them). `script` is another fixture to run instead of runtime-server.ts.
 */
export function startChild(
  command: string,
  args: string[],
  mode: 'graceful' | 'hang',
  env: Record<string, string> = {},
  script: string = fixture,
): Child {
  const child = spawn(command, [...args, script, mode], {
    cwd: packageDir,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve(line: string): void }> = [];
  let stderr = '';
  let buffered = '';
  const errWaiters: Array<{ text: string; resolve(line: string): void }> = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of errWaiters) {
      const line = stderr.split('\n').find((l) => l.includes(waiter.text));
      if (line !== undefined) waiter.resolve(line);
    }
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
  const errLine = (text: string): Promise<string> => {
    const seen = stderr.split('\n').find((l) => l.includes(text));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      errWaiters.push({ text, resolve });
      void exited.then(({ code }) =>
        reject(new Error(`child exited (${code}) before "${text}" on stderr:\n${stderr}`)),
      );
    });
  };
  const url = async (): Promise<string> => {
    const listening = await within(line('listening '), 'the child to listen', 15_000);
    return listening.slice('listening '.length);
  };
  return { child, exited, line, lines, errLine, stderr: () => stderr, url };
}

/** Opens the fixture's event stream and reads its first event. */
export async function openStream(url: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await within(fetch(`${url}/stream`), 'the stream headers');
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  const first = await within(reader.read(), 'the first event');
  expect(new TextDecoder().decode(first.value)).toBe('data: ready\n\n');
  return reader;
}

/** Reads a stream to its end. */
export async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/** Sends a bare GET on a raw socket, so the test decides when the connection goes away. */
export function rawGet(url: string, path: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  return socket;
}
