import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler, type RequestEvent } from '@edge-mcp/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createExampleServer } from '../src/example/index.ts';

/** A TCP proxy in front of the server whose connections the test can cut, as a flaky network would. */
class CuttableProxy {
  readonly #sockets = new Set<Socket>();
  readonly server: Server;
  constructor(target: number) {
    this.server = createServer((client) => {
      const upstream = tcpConnect(target, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
  }
  listen(): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () =>
        resolve((this.server.address() as { port: number }).port),
      ),
    );
  }
  cutAll(): void {
    for (const socket of this.#sockets) socket.destroy();
  }
  close(): Promise<void> {
    this.cutAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let handler: McpHandler;
let listening: NodeServer;
let proxy: CuttableProxy;
let proxyUrl: URL;
const events: RequestEvent[] = [];

beforeAll(async () => {
  handler = createMcpHandler(createExampleServer(), { onRequest: (e) => events.push(e) });
  listening = await serve(handler, { port: 0, shutdownSignals: false });
  proxy = new CuttableProxy(listening.port);
  proxyUrl = new URL(`http://127.0.0.1:${await proxy.listen()}/mcp`);
});

afterAll(async () => {
  await proxy.close();
  await listening.close();
});

async function connect(url = new URL(`${listening.url}/mcp`)): Promise<Client> {
  const client = new Client(
    { name: 'sdk-test', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Ada' },
  }));
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('the official TypeScript client (SDK 1.32.2) against edge-mcp', () => {
  test('connects, lists and calls', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'edge-mcp-example' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'sleep', 'greet', 'word_count', 'weather']),
    );
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
    const note = await client.readResource({ uri: 'notes://welcome' });
    const [content] = note.contents;
    expect(content && 'text' in content ? JSON.parse(content.text).title : undefined).toBe(
      'Welcome',
    );
    await client.close();
  });

  test('calls with progress', async () => {
    const client = await connect();
    const progress: number[] = [];
    const result = await client.callTool({ name: 'sleep', arguments: { ms: 2100 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'slept 2100 ms' }]);
    expect(progress).toEqual([0, 1000, 2000]);
    await client.close();
  });

  test("cancels through the client's AbortSignal: the handler is aborted with client-cancel", async () => {
    const client = await connect();
    const controller = new AbortController();
    const call = client.callTool({ name: 'sleep', arguments: { ms: 30_000 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('user gave up'),
    });
    await expect(call).rejects.toThrow();
    await expect
      .poll(() => events.find((e) => e.name === 'sleep' && e.reason === 'client-cancel'), {
        timeout: 5000,
      })
      .toMatchObject({ outcome: 'cancelled', method: 'tools/call' });
    await client.close();
  });

  test('an elicitation round trip', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'greet', arguments: { greeting: 'Hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hi, Ada!' }]);
    await client.close();
  });

  test('resumption after a dropped stream: the client reconnects with Last-Event-ID and gets the result', async () => {
    const client = await connect(proxyUrl);
    const resumedBefore = handler.stats().resumed;
    let cut = false;
    const progress: number[] = [];
    const result = await client.callTool({ name: 'sleep', arguments: { ms: 2500 } }, undefined, {
      onprogress: (p) => {
        progress.push(p.progress);
        if (!cut) {
          cut = true;
          proxy.cutAll();
        }
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'slept 2500 ms' }]);
    expect(progress[0]).toBe(0);
    expect(handler.stats().resumed).toBeGreaterThan(resumedBefore);
    const last = events.filter((e) => e.name === 'sleep').at(-1);
    expect(last).toMatchObject({ outcome: 'ok' });
    await client.close();
  }, 20_000);
});
