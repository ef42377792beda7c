/**
 * Two or three handlers in one process, each with its own `redisBackend()` on one Redis (as
 * separate processes would have), serving the tools the cluster tests drive (the core's
 * memory-cluster scenarios, on Redis), and what each instance saw (handler signals, closed
 * sessions). Everything is closed after each test.
 */
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
  type SessionEvent,
} from '@edge-mcp/core';
import { sleep } from '@edge-mcp/test-kit';
import { addClusterTools } from '@edge-mcp/test-kit/cluster';
import { afterEach } from 'vitest';
import {
  backendOf,
  createContext,
  type RedisBackend,
  type RedisContext,
} from '../../src/backend.ts';
import type { RedisBackendOptions } from '../../src/options.ts';
import { namespace } from '../helpers.ts';

export interface Node {
  readonly cluster: RedisBackend;
  /** What the cluster is built on (connection, instance, bus), for tests that go behind it. */
  readonly context: RedisContext;
  readonly server: McpServer;
  readonly handler: McpHandler;
  /** Signals of the tool handlers that ran here, in start order. */
  readonly signals: AbortSignal[];
  /** Sessions whose end this instance reported (`onSessionClose`). */
  readonly closes: SessionEvent[];
  /** Resolves when the next tool handler starts here. */
  started(): Promise<AbortSignal>;
  /** handler.close() then cluster.close(), once. */
  stop(): Promise<void>;
}

const NUMBERS = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((name) => [name, { type: 'number' }])),
});

function server(seen: { signals: AbortSignal[]; waiting: Array<(s: AbortSignal) => void> }) {
  const s = new McpServer({ name: 'redis-cluster', version: '1.0.0' });
  const begin = (signal: AbortSignal) => {
    seen.signals.push(signal);
    for (const wake of seen.waiting.splice(0)) wake(signal);
  };
  // The cluster scenarios' tools (test kit), and two of this package's own tests.
  addClusterTools(s, begin);
  s.tool('echo', {}, () => 'echo');
  // Writes the state bag after a while (while Redis is away, in the failure tests).
  s.tool('later', { inputSchema: NUMBERS('ms') }, async (args, ctx) => {
    begin(ctx.signal);
    await sleep(args.ms as number, ctx.signal);
    ctx.session?.state.set('late', true);
    return 'late';
  });
  return s;
}

let running: Node[] = [];
afterEach(async () => {
  const nodes = running;
  running = [];
  await Promise.all(nodes.map((node) => node.stop()));
});

export interface ClusterSetup {
  count?: number;
  options?: McpHandlerOptions;
  redis?: Partial<RedisBackendOptions>;
}

/**
 * `count` handlers, each with its own `redisBackend()` of one fresh namespace on `url` (one
 * primary's, or a cluster's seed nodes).
 */
export async function startNodes(
  url: string | readonly string[],
  setup: ClusterSetup = {},
): Promise<Node[]> {
  const ns = namespace();
  const nodes: Node[] = [];
  for (let i = 0; i < (setup.count ?? 3); i++) nodes.push(await startNode(url, ns, setup));
  return nodes;
}

/** One more instance of the namespace `ns`. */
export async function startNode(
  url: string | readonly string[],
  ns: string,
  setup: ClusterSetup = {},
): Promise<Node> {
  const context = await createContext({
    ...(typeof url === 'string' ? { url } : { nodes: url }),
    namespace: ns,
    connectTimeoutMs: 1000,
    socketTimeoutMs: 1000,
    heartbeatMs: 500,
    linkTimeoutMs: 500,
    ...setup.redis,
  });
  const cluster = backendOf(context);
  const seen = { signals: [] as AbortSignal[], waiting: [] as Array<(s: AbortSignal) => void> };
  const closes: SessionEvent[] = [];
  const s = server(seen);
  const handler = createMcpHandler(s, {
    ...cluster.handlerOptions(),
    requestState: { secret: 'cluster-secret' },
    onSessionClose: (event) => closes.push(event),
    shutdownTimeoutMs: 2000,
    ...setup.options,
  });
  let stopped: Promise<void> | undefined;
  const node: Node = {
    cluster,
    context,
    server: s,
    handler,
    signals: seen.signals,
    closes,
    started: () => new Promise((resolve) => seen.waiting.push(resolve)),
    stop: () => {
      stopped ??= handler.close().then(() => cluster.close());
      return stopped;
    },
  };
  running.push(node);
  return node;
}

export { aborted } from '@edge-mcp/test-kit';
