/**
 * Two or three handlers in one process serving one memory cluster, each with its own server
 * instance (as separate processes would have), the tools the cluster tests drive, and what each
 * instance saw (handler signals, closed sessions).
 */

import { pollTask } from '@edge-mcp/test-kit';
import { addClusterTools, addTaskTools } from '@edge-mcp/test-kit/cluster';
import type { SessionEvent } from '../../src/endpoint/options.ts';
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
} from '../../src/index.ts';
import { call } from '../helpers.ts';
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
  /** Lets the `compute`, `again`, `twice` and `ask-then-hold` handlers waiting here return. */
  release(): void;
  /** This instance stops: `handler.close()`. */
  stop(): Promise<void>;
}

interface Seen {
  readonly tag: string;
  readonly signals: AbortSignal[];
  readonly waiting: Array<(s: AbortSignal) => void>;
  readonly gates: Array<() => void>;
}

/** Waits for `release()` of the node, or for `signal`. */
function gate(node: Seen, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const open = () => {
      signal.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => reject(signal.reason);
    node.gates.push(open);
    signal.addEventListener('abort', abort, { once: true });
  });
}

function server(node: Seen) {
  const s = new McpServer({ name: 'cluster', version: '1.0.0' });
  const begin = (signal: AbortSignal) => {
    node.signals.push(signal);
    for (const wake of node.waiting.splice(0)) wake(signal);
  };
  // The cluster scenarios' tools (test kit), and two task tools of the core's own tests.
  addClusterTools(s, begin);
  addTaskTools(s, { tag: node.tag, begin, hold: (signal) => gate(node, signal) });
  // Asks, then (answered) starts and waits for `release()`: a run that went on past its input.
  s.tool('ask-then-hold', { taskSupport: 'required' }, async (_args, ctx) => {
    await ctx.elicit({ message: 'Go?', requestedSchema: { type: 'object', properties: {} } }, 'go');
    begin(ctx.signal);
    await gate(node, ctx.signal);
    return 'held';
  });
  // Two runs in all (`retry`), each waiting for `release()`.
  s.tool('twice', { taskSupport: 'required', retry: { attempts: 2 } }, async (_args, ctx) => {
    begin(ctx.signal);
    await gate(node, ctx.signal);
    return `twice on ${node.tag}`;
  });
  return s;
}

/**
 * `count` handlers (`ia`, `ib`, `ic`) over one memory cluster; `tasks` adds to each one's task
 * options (its store stays the cluster's).
 */
export function startCluster(
  count = 3,
  options: McpHandlerOptions = {},
  tasks: ReadonlyArray<McpHandlerOptions['tasks']> = [],
) {
  const world = new MemoryCluster();
  const nodes: Node[] = [];
  for (let i = 0; i < count; i++) {
    const instance = world.instance(`i${'abc'[i]}`);
    const seen: Seen = { tag: `i${'abc'[i]}`, signals: [], waiting: [], gates: [] };
    const closes: SessionEvent[] = [];
    const s = server(seen);
    const handler = createMcpHandler(s, {
      ...instance.options,
      requestState: { secret: 'cluster-secret' },
      onSessionClose: (event) => closes.push(event),
      ...options,
      tasks: { ...instance.options.tasks, ...tasks[i] },
    });
    nodes.push({
      instance,
      server: s,
      handler,
      signals: seen.signals,
      closes,
      started: () => new Promise((resolve) => seen.waiting.push(resolve)),
      release: () => {
        for (const open of seen.gates.splice(0)) open();
      },
      stop: () => handler.close(),
    });
  }
  return { world, nodes: nodes as [Node, Node, Node] };
}

/** A 2026-07-28 client with the tasks extension and form elicitation. */
export const WITH_TASKS = {
  capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } },
};

/** Polls task `taskId` with `tasks/get` on `handler` until `done(status)`. */
export const poll = (handler: McpHandler, taskId: string, done: (status: string) => boolean) =>
  pollTask(() => call(handler, 'tasks/get', { taskId }, WITH_TASKS), done);
