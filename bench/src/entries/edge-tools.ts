/**
 * The benchmark's edge-mcp server: `echo {text}`, `add {a,b}` and `sleep {ms}` (honours its
 * signal). Web APIs only, so the Node, Deno and Bun entries share it.
 */
import { McpServer } from '@edge-mcp/core';
import * as z from 'zod';
import { SERVER_INFO } from './plain-tools.ts';
import { sleepFor } from './sleep.ts';

/** `onAbort(requestId)` runs when a `sleep` handler sees its signal abort. */
export function createEdgeServer(onAbort: (requestId: string) => void): McpServer {
  const server = new McpServer(SERVER_INFO);
  server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
  server.tool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) =>
    String(a + b),
  );
  server.tool('sleep', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
    ctx.progress(0, ms);
    await sleepFor(ms, ctx.signal, () => onAbort(String(ctx.requestId)));
    return `slept ${ms} ms`;
  });
  return server;
}
