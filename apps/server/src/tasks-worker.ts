/**
 * `pnpm start:worker`: a task worker for the example (Node). It serves no HTTP: it joins the
 * Redis named by `REDIS_URL` (or `REDIS_CLUSTER_NODES`) as the HTTP instances do and runs their
 * tasks with the same tools: the ones they queue (`MCP_TASKS_RUN=workers` on them) and the ones
 * whose runner was lost. SIGINT and SIGTERM let its running tasks go to other runners, then it
 * exits.
 */
import { serveTasks } from '@edge-mcp/core';
import { createExampleServer, taskRunLogger } from './example/index.ts';
import { exampleCluster } from './example/redis.ts';

const env = (name: string) => process.env[name];
const log = (line: string) => console.error(line);

if (!env('REDIS_URL') && !env('REDIS_CLUSTER_NODES')) {
  log('edge-mcp task worker: set REDIS_URL (or REDIS_CLUSTER_NODES): a worker shares a store');
  process.exit(1);
}
const redis = await exampleCluster(env, log).catch((error: Error) => {
  log(`edge-mcp task worker: ${error.message}`);
  return process.exit(1);
});
const store = redis?.options.tasks ? redis.options.tasks.store : undefined;
if (!redis || !store) {
  log('edge-mcp task worker: the Redis backend holds no task store');
  process.exit(1);
}
const worker = serveTasks(createExampleServer(), { store, onRun: taskRunLogger(log) });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  log(`edge-mcp task worker stopping (${worker.running} running)`);
  await worker.close();
  await redis.close();
  log('edge-mcp task worker stopped');
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
log(
  `edge-mcp task worker running tasks from Redis at ${redis.url} (instance ${redis.cluster.instance})`,
);
