import { connect } from 'node:net';
import { afterEach } from 'vitest';
import { type NodeServer, type ServeOptions, serve } from '../src/node/index.ts';
import type { FetchHandler } from '../src/shared/types.ts';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export { within } from '@edge-mcp/test-kit';

const running = new Set<NodeServer>();
afterEach(async () => {
  await Promise.all([...running].map((server) => server.close()));
  running.clear();
});

/** Serves `handler` on a free loopback port; closed after each test. */
export async function start(
  handler: FetchHandler,
  options: ServeOptions = {},
): Promise<NodeServer> {
  const server = await serve(handler, {
    port: 0,
    hostname: '127.0.0.1',
    shutdownSignals: false,
    onError: () => {},
    ...options,
  });
  running.add(server);
  return server;
}

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
export function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.write(request);
  });
}

export function sseHeaders(): HeadersInit {
  return { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
}

const encoder = new TextEncoder();
export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}
