/**
 * Target: edge-mcp on the Node adapter (`serve()`), both eras on one endpoint. SIGTERM shuts it
 * down gracefully (the adapter's default), which also closes the side channel, so the process
 * exits by itself. MAX_SESSIONS raises the session caps for the 10,000-session measures.
 */
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import { createEdgeServer } from './edge-tools.ts';
import { benchSessions, HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

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

handler = createMcpHandler(createEdgeServer(side.abort), {
  sessions: benchSessions(),
  rateLimit: rateLimit(),
});
await serve(handler, { port: PORT, hostname: HOST });
await serveSideChannel(side, handler.signal);
