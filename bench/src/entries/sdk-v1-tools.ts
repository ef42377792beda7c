/**
 * The benchmark's tools on `@modelcontextprotocol/sdk` 1.32's McpServer: the same `echo`, `add`
 * and `sleep` as edge-mcp's (src/entries/edge-tools.ts). Web APIs only: the Node target and the
 * `agents` McpAgent Worker (which serves an SDK v1 server) share it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { sleepFor } from './sleep.ts';

export function registerSdkV1Tools(server: McpServer): McpServer {
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('sleep', { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    await sleepFor(ms, extra.signal);
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  });
  return server;
}
