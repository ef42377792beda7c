/**
 * Probe: client disconnect → handler abort latency on the Node adapter, over real sockets.
 * The client destroys its socket once the tool is running (first progress event received); the
 * tool records when its signal aborted. Both clocks are this process's `performance.now()`.
 */
import { request } from 'node:http';
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import * as z from 'zod';

const DROPS = Number(process.env.DROPS ?? 200);
const aborts = new Map<string, number>();
const server = new McpServer({ name: 'probe', version: '1' });
server.tool(
  'sleep',
  { input: z.object({ ms: z.number(), tag: z.string() }) },
  async ({ ms, tag }, ctx) => {
    ctx.progress(0, ms);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener(
        'abort',
        () => {
          aborts.set(tag, performance.now());
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    return 'done';
  },
);
const handler = createMcpHandler(server);
const listening = await serve(handler, { port: 0, shutdownSignals: false });

function dropOnce(tag: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: tag,
    method: 'tools/call',
    params: {
      name: 'sleep',
      arguments: { ms: 10_000, tag },
      _meta: {
        progressToken: tag,
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(`${listening.url}/mcp`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'sleep',
      },
    });
    req.on('response', (res) => {
      res.once('data', () => {
        const dropped = performance.now();
        req.destroy();
        const check = () => {
          const at = aborts.get(tag);
          if (at === undefined) return setImmediate(check);
          resolve(at - dropped);
        };
        check();
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(body);
  });
}

const samples: number[] = [];
for (let i = 0; i < DROPS; i++) samples.push(await dropOnce(`d${i}`));
samples.sort((a, b) => a - b);
const pct = (p: number) =>
  samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]?.toFixed(2);
console.log(
  JSON.stringify({
    probe: 'disconnect-to-abort',
    runtime: `node ${process.version}`,
    drops: DROPS,
    p50ms: pct(50),
    p99ms: pct(99),
    maxms: samples.at(-1)?.toFixed(2),
  }),
);
await listening.close();
