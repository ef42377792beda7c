/**
 * Two or three handlers in one process serving one memory cluster, each with its own server
 * instance (as separate processes would have), the tools the cluster tests drive, and what each
 * instance saw (handler signals, closed sessions).
 */

import { sleep } from '@edge-mcp/test-kit';
import { addClusterTools } from '@edge-mcp/test-kit/cluster';
import type { SessionEvent } from '../../src/endpoint/options.ts';
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
} from '../../src/index.ts';
import { type ClusterInstance, MemoryCluster } from './memory-cluster.ts';

export interface Node {
  readonly instance: ClusterInstance;
  readonly server: McpServer;
  readonly handler: McpHandler;
  /** Signals of the handlers that ran here, in start order. */
  readonly signals: AbortSignal[];
  /** Sessions whose end this instance reported (`onSessionClose`). */
  readonly closes: SessionEvent[];
  /** Resolves when the next tool handler starts here. */
  started(): Promise<AbortSignal>;
  /** This instance stops: `handler.close()`. */
  stop(): Promise<void>;
}

function server(node: { signals: AbortSignal[]; waiting: Array<(s: AbortSignal) => void> }) {
  const s = new McpServer({ name: 'cluster', version: '1.0.0' });
  const begin = (signal: AbortSignal) => {
    node.signals.push(signal);
    for (const wake of node.waiting.splice(0)) wake(signal);
  };
  // The cluster scenarios' tools (test kit), and two task tools of the core's own tests.
  addClusterTools(s, begin);
  s.tool('compute', { taskSupport: 'required' }, async (_args, ctx) => {
    begin(ctx.signal);
    await sleep(30_000, ctx.signal);
    ctx.signal.throwIfAborted();
    return 'computed';
  });
  s.tool('question', { taskSupport: 'required' }, async (_args, ctx) => {
    begin(ctx.signal);
    const answer = await ctx.elicit(
      { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
      'name',
    );
    return `answered ${(answer.content as { name: string }).name}`;
  });
  return s;
}

/** `count` handlers (`ia`, `ib`, `ic`) over one memory cluster. */
export function startCluster(count = 3, options: McpHandlerOptions = {}) {
  const world = new MemoryCluster();
  const nodes: Node[] = [];
  for (let i = 0; i < count; i++) {
    const instance = world.instance(`i${'abc'[i]}`);
    const seen = { signals: [] as AbortSignal[], waiting: [] as Array<(s: AbortSignal) => void> };
    const closes: SessionEvent[] = [];
    const s = server(seen);
    const handler = createMcpHandler(s, {
      ...instance.options,
      requestState: { secret: 'cluster-secret' },
      onSessionClose: (event) => closes.push(event),
      ...options,
    });
    nodes.push({
      instance,
      server: s,
      handler,
      signals: seen.signals,
      closes,
      started: () => new Promise((resolve) => seen.waiting.push(resolve)),
      stop: () => handler.close(),
    });
  }
  return { world, nodes: nodes as [Node, Node, Node] };
}
