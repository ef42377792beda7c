/**
 * Target: edge-mcp on the Node adapter as node-edge.ts, with one package feature on (MODE):
 * `auth` (`jwtVerifier` as a user gets it, against the bench's JWKS at `JWKS_URL`, its
 * verified-token cache on), `auth-nocache` (`cache: false`) or `tasks` (the task tool, memory
 * store).
 */
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import { jwtVerifier } from '@edge-mcp/core/jwt';
import { createEdgeServer } from './edge-tools.ts';
import { addTaskTool } from './edge-tools-tasks.ts';
import { HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

let options: McpHandlerOptions = {};
if (MODE === 'auth' || MODE === 'auth-nocache') {
  const issuer = env('JWT_ISSUER');
  const resource = env('MCP_RESOURCE');
  options = {
    auth: {
      verify: jwtVerifier({
        issuer,
        audience: resource,
        jwksUrl: env('JWKS_URL'),
        ...(MODE === 'auth-nocache' ? { cache: false } : {}),
      }),
      resource,
      authorizationServers: [issuer],
    },
  };
} else if (MODE !== 'tasks') {
  throw new Error(`unknown MODE ${MODE}`);
}

let handler: McpHandler | undefined;
const side = nodeSideChannel(() => handler?.stats());
const server = createEdgeServer(side.abort);
if (MODE === 'tasks') addTaskTool(server);
handler = createMcpHandler(server, options);
await serve(handler, { port: PORT, hostname: HOST });
await serveSideChannel(side, handler.signal);
