/**
 * Target: edge-mcp on the Node adapter (`serve()`), both eras on one endpoint. SIGTERM shuts it
 * down gracefully (the adapter's default), which also closes the side channel, so the process
 * exits by itself. MAX_SESSIONS raises the session caps for the 10,000-session measures. MODE
 * turns one package feature on, so its target differs from the plain one by that option alone:
 * `auth` (`jwtVerifier` as a user gets it, against the bench's JWKS at `JWKS_URL`, its
 * verified-token cache on), `auth-nocache` (`cache: false`) or `tasks` (the task tool, memory
 * store).
 */
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import { jwtVerifier } from '@edge-mcp/core/jwt';
import { createEdgeServer } from './edge-tools.ts';
import { addTaskTool } from './edge-tools-tasks.ts';
import { benchSessions, HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

let handler: McpHandler | undefined;
const side = nodeSideChannel(() => handler?.stats());
/**
 * RATE_LIMIT=`perSecond:burst`: the same bucket per principal, per tool and in total.
 * RATE_LIMIT_SCOPE=principal: the bucket per principal only (the fairness measure: a `total`
 * bucket would let one principal spend another's budget, a different question).
 */
function rateLimit(): McpHandlerOptions['rateLimit'] {
  const [perSecond, burst] = (process.env.RATE_LIMIT ?? '').split(':').map(Number);
  if (!perSecond || !burst) return undefined;
  const limit = { perSecond, burst };
  if (process.env.RATE_LIMIT_SCOPE === 'principal') return { perPrincipal: limit };
  return { perPrincipal: limit, perTool: { '*': limit }, total: limit };
}

function auth(): McpHandlerOptions['auth'] {
  if (MODE !== 'auth' && MODE !== 'auth-nocache') return undefined;
  const env = (name: string) => {
    if (!process.env[name]) throw new Error(`${name} is not set`);
    return process.env[name];
  };
  const [issuer, resource] = [env('JWT_ISSUER'), env('MCP_RESOURCE')];
  const cache = MODE === 'auth-nocache' ? { cache: false as const } : {};
  const verify = jwtVerifier({ issuer, audience: resource, jwksUrl: env('JWKS_URL'), ...cache });
  return { verify, resource, authorizationServers: [issuer] };
}

const server = createEdgeServer(side.abort);
if (MODE === 'tasks') addTaskTool(server);
handler = createMcpHandler(server, {
  sessions: benchSessions(),
  rateLimit: rateLimit(),
  auth: auth(),
});
await serve(handler, { port: PORT, hostname: HOST });
await serveSideChannel(side, handler.signal);
