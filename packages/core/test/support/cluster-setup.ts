/**
 * Two or three handlers in one process serving one memory cluster, each with its own server
 * instance (as separate processes would have), the tools the cluster tests drive, and what each
 * instance saw (handler signals, closed sessions).
 */
import * as z from 'zod';
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
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

function server(node: { signals: AbortSignal[]; waiting: Array<(s: AbortSignal) => void> }) {
  const s = new McpServer({ name: 'cluster', version: '1.0.0' });
  const begin = (signal: AbortSignal) => {
    node.signals.push(signal);
    for (const wake of node.waiting.splice(0)) wake(signal);
  };
  s.tool('sleep', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
    begin(ctx.signal);
    await sleep(ms, ctx.signal);
    ctx.signal.throwIfAborted();
    return 'slept';
  });
  s.tool(
    'drip',
    { inputSchema: z.object({ count: z.number(), ms: z.number() }) },
    async (args, ctx) => {
      begin(ctx.signal);
      for (let i = 1; i <= args.count; i++) {
        ctx.progress(i, args.count);
        // Two at once now and then: appends in flight while a relay attaches.
        if (i % 3 === 0 && i < args.count) ctx.progress(++i, args.count);
        await sleep(args.ms, ctx.signal);
        ctx.signal.throwIfAborted();
      }
      return 'dripped';
    },
  );
  s.tool('ask', {}, async (_args, ctx) => {
    begin(ctx.signal);
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `hello ${(answer.content as { name: string }).name}`;
  });
  s.tool('count', {}, (_args, ctx) => {
    const state = ctx.session?.state as Map<string, unknown>;
    const n = ((state.get('n') as number | undefined) ?? 0) + 1;
    state.set('n', n);
    return String(n);
  });
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
  s.resource('watched', 'test://watched', {}, () => 'watched');
  s.prompt('greeting', {}, () => 'hello');
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
    });
  }
  return { world, nodes: nodes as [Node, Node, Node] };
}
