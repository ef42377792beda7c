/**
 * Handlers on several instances sharing one `RedisTaskStore` on a real redis-server, as instances
 * of one server would (each its own context, heartbeat and bus), with the tools the task tests
 * drive and what each instance saw.
 */
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  McpServer,
  type TaskOptions,
} from '@edge-mcp/core';
import { modernRequest, pollTask, type RpcAnswer, readAnswer } from '@edge-mcp/test-kit';
import { addTaskTools } from '@edge-mcp/test-kit/cluster';
import { createContext } from '../../src/backend.ts';
import type { RedisContext } from '../../src/context.ts';
import { RedisTaskStore } from '../../src/task-store.ts';
import { closeAfter, namespace, useRedis } from '../helpers.ts';

export const redis = useRedis();

export const TASKS = { 'io.modelcontextprotocol/tasks': {} };
export const WITH_TASKS = { capabilities: { extensions: TASKS, elicitation: { form: {} } } };

/** A context with test timeouts on `url`, closed (with `more` first) after the test. */
export async function connect(url: string, ns: string, more?: () => Promise<void>) {
  const context = await createContext({
    url,
    namespace: ns,
    connectTimeoutMs: 1000,
    socketTimeoutMs: 1000,
    heartbeatMs: 200,
  });
  closeAfter({
    close: async () => {
      await more?.();
      await context.instance.stop();
      await context.bus.close();
      await context.connection.close();
    },
  });
  return context;
}

export interface Node {
  context: RedisContext;
  store: RedisTaskStore;
  handler: McpHandler;
  signals: AbortSignal[];
  /** Resolves when the next tool handler starts here. */
  started(): Promise<AbortSignal>;
  /** Lets the `compute` handlers running here return. */
  release(): void;
}

function server(node: {
  tag: string;
  signals: AbortSignal[];
  waiting: Array<(signal: AbortSignal) => void>;
  released: Array<() => void>;
}) {
  const s = new McpServer({ name: 'redis-tasks', version: '1.0.0' });
  const begin = (signal: AbortSignal) => {
    node.signals.push(signal);
    for (const wake of node.waiting.splice(0)) wake(signal);
  };
  const hold = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      node.released.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  addTaskTools(s, { tag: node.tag, begin, hold });
  return s;
}

export async function nodes(
  count: number,
  options: McpHandlerOptions = {},
  /** Task options of every node, or of each in turn. */
  tasks: Omit<TaskOptions, 'store'> | ReadonlyArray<Omit<TaskOptions, 'store'>> = {},
  url = redis().url,
): Promise<Node[]> {
  const ns = namespace();
  const made: Node[] = [];
  for (let i = 0; i < count; i++) {
    const seen = {
      signals: [] as AbortSignal[],
      waiting: [] as Array<(s: AbortSignal) => void>,
      released: [] as Array<() => void>,
    };
    let handler: McpHandler | undefined;
    let store: RedisTaskStore | undefined;
    const context = await connect(url, ns, async () => {
      await handler?.close();
      await store?.close();
    });
    store = new RedisTaskStore(context);
    handler = createMcpHandler(server({ ...seen, tag: context.instance.tag }), {
      requestState: { secret: 'redis-tasks-secret' },
      ...options,
      tasks: { ...(Array.isArray(tasks) ? tasks[i] : tasks), store },
    });
    made.push({
      context,
      store,
      handler,
      signals: seen.signals,
      started: () => new Promise((resolve) => seen.waiting.push(resolve)),
      release: () => {
        for (const go of seen.released.splice(0)) go();
      },
    });
  }
  return made;
}

export async function call(
  handler: McpHandler,
  method: string,
  params: Record<string, unknown> = {},
  options: Parameters<typeof modernRequest>[2] = WITH_TASKS,
): Promise<RpcAnswer> {
  return readAnswer(await handler.fetch(modernRequest(method, params, options)));
}

export const poll = (
  handler: McpHandler,
  taskId: string,
  done: (status: string) => boolean,
  options: Parameters<typeof modernRequest>[2] = WITH_TASKS,
) => pollTask(() => call(handler, 'tasks/get', { taskId }, options), done);
