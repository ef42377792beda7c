/**
 * Target: edge-mcp on the Node adapter with everything on Redis, the way the example app and the
 * package's README run it: `redisBackend({ url }).handlerOptions()` (sessions, event store, bus,
 * task store) spread into the handler's options. `REDIS_URL` comes from the bench's own
 * `redis-server` (`REDIS_CLUSTER_NODES` from its own Redis Cluster). The side channel's `/stats` carries `counters.redisRoundTrips`, the
 * connection's own count of round trips (as test/round-trips.test.ts of @edge-mcp/redis reads
 * it), which the bench divides by the calls answered. MODE=tasks adds the task tool.
 */
import { serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, type McpHandler } from '@edge-mcp/core';
import { HANDLE } from '@edge-mcp/core/adapter';
import { redisBackend } from '@edge-mcp/redis';
import { createEdgeServer } from './edge-tools.ts';
import { addTaskTool } from './edge-tools-tasks.ts';
import { HOST, MODE, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

const url = process.env.REDIS_URL;
const nodes = process.env.REDIS_CLUSTER_NODES?.split(',');
if (!url && !nodes) throw new Error('REDIS_URL (or REDIS_CLUSTER_NODES) is not set');
const cluster = await redisBackend({
  ...(nodes ? { nodes } : { url }),
  onError: (error, where) => console.error(`redis (${where}): ${error.message}`),
});
let handler: McpHandler | undefined;
// Requests this process handled, so round trips are divided by what the server served.
let requests = 0;
const side = nodeSideChannel(() => ({
  handler: handler?.stats(),
  // Heartbeats are the instance's, not the requests': one round trip each, every few seconds.
  counters: { redisRoundTrips: redisRequestRoundTrips(), requests },
}));
function redisRequestRoundTrips(): number {
  const { roundTrips, heartbeats } = cluster.stats();
  return roundTrips - heartbeats;
}
const server = createEdgeServer(side.abort);
if (MODE === 'tasks') addTaskTool(server);
const mcp = createMcpHandler(server, cluster.handlerOptions());
handler = mcp;
const entry = mcp[HANDLE];
await serve(
  {
    // Both entries count; the adapter takes the fast one (`HANDLE`) when the object has it, and
    // a wrapper without it would send every request through a full Web `Request` instead.
    fetch: (request, ...rest) => {
      requests++;
      return mcp.fetch(request, ...rest);
    },
    [HANDLE]: (request, routed, auth) => {
      requests++;
      return entry(request, routed, auth);
    },
    close: async () => {
      await mcp.close();
      await cluster.close();
    },
  },
  { port: PORT, hostname: HOST },
);
await serveSideChannel(side, mcp.signal);
