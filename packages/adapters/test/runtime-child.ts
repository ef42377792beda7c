/**
 * Runs test/fixtures/runtime-server.ts under Node, or the real `deno` or `bun` binary, and follows its
 * stdout line by line (the test kit's `startChild`). Each child gets its own process group
 * (`detached`), killed after each test.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bunBinary as bunOf,
  type Child,
  denoBinary as denoOf,
  killChildren,
  startChild,
} from '@edge-mcp/test-kit/node';
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

/** A fixture child, with the base URL from its `listening` line. */
export interface FixtureChild extends Child {
  url(): Promise<string>;
}

afterEach(killChildren);

/**
 * Starts `command args… fixture mode` in its own process group, with PORT=0 and HOST=127.0.0.1
 * (`env` overrides them). `script` is another fixture to run instead of runtime-server.ts.
 */
export function startFixture(
  command: string,
  args: string[],
  mode: 'graceful' | 'hang',
  env: Record<string, string> = {},
  script: string = fixture,
): FixtureChild {
  const started = startChild(command, [...args, script, mode], {
    cwd: packageDir,
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    detached: true,
  });
  const url = async (): Promise<string> => {
    const listening = await within(started.line('listening '), 'the child to listen', 15_000);
    return listening.slice('listening '.length);
  };
  return { ...started, url };
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
