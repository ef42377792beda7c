/**
 * A server with task tools on the Node adapter (127.0.0.1, a free port), for the official
 * clients' end-to-end tests (`test/sdk-tasks.test.ts`). The tools only wait for events: a
 * `Gates` object lets the test decide when a handler goes on, and `Probe` records what the
 * handlers saw (their task ids, the reason their signal aborted).
 */
import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import {
  abortReasonType,
  createMcpHandler,
  McpError,
  type McpHandler,
  McpServer,
  type RequestEvent,
} from '@edge-mcp/core';
import * as z from 'zod';

/** A promise with its resolver outside. */
export interface Gate<T = void> {
  readonly promise: Promise<T>;
  /** Whether `open()` was called. */
  readonly opened: boolean;
  open(value: T): void;
}

export function gate<T = void>(): Gate<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  let opened = false;
  return {
    promise,
    get opened() {
      return opened;
    },
    open(value: T) {
      opened = true;
      resolve(value);
    },
  };
}

/** What the handlers report, one gate per event the tests wait for. */
export class Probe {
  /** `compute` started, with its task id (or none). */
  computeStarted = gate<string | undefined>();
  /** Lets `compute` return. */
  computeRelease = gate();
  /** `block` started, with its task id. */
  blockStarted = gate<string | undefined>();
  /** `block`'s signal aborted, with the reason's type. */
  blockAborted = gate<string | undefined>();
  /** Lets `steps` report its progress, and then return. */
  stepsRelease = gate();
  stepsFinish = gate();
}

const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};
const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

/** The task tools, the same for both eras. */
export function createTasksServer(probe: Probe): McpServer {
  const server = new McpServer({ name: 'edge-mcp-tasks-e2e', version: '1.0.0' });
  server.tool('greet', { inputSchema: { name: z.string() } }, ({ name }) => `Hello, ${name}!`);
  // Runs as a task whenever the client can have one; returns when the test lets it.
  server.tool(
    'compute',
    { inputSchema: { n: z.number() }, taskSupport: 'optional' },
    async ({ n }, ctx) => {
      probe.computeStarted.open(ctx.task?.id);
      await probe.computeRelease.promise;
      ctx.signal.throwIfAborted();
      return `${n * 2}`;
    },
  );
  // Never returns by itself: only an abort (cancel, TTL, shutdown) ends it.
  server.tool('block', { taskSupport: 'required' }, (_args, ctx) => {
    probe.blockStarted.open(ctx.task?.id);
    return new Promise((_resolve, reject) => {
      const { signal } = ctx;
      const onAbort = () => {
        probe.blockAborted.open(abortReasonType(signal));
        reject(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  });
  // Input inside the task: one elicitation, answered through the task.
  server.tool(
    'confirm_delete',
    { inputSchema: { filename: z.string() }, taskSupport: 'required' },
    async ({ filename }, ctx) => {
      const answer = await ctx.elicit(
        { message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA },
        'confirm',
      );
      const confirmed =
        answer.action === 'accept' && (answer.content as { confirm?: boolean }).confirm === true;
      return confirmed ? `deleted ${filename}` : `kept ${filename}`;
    },
  );
  // Input before the task (MRTR in 2026-07-28, a request on the call's stream in 2025-11-25),
  // then a task, then input inside the task.
  server.tool('onboard', { taskSupport: 'required', taskStart: 'manual' }, async (_args, ctx) => {
    const who = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA }, 'name');
    const name = (who.content as { name: string }).name;
    const taskId = await ctx.detach(`onboarding ${name}`);
    const ok = await ctx.elicit(
      { message: `Create an account for ${name}?`, requestedSchema: CONFIRM_SCHEMA },
      'confirm',
    );
    const confirmed = (ok.content as { confirm?: boolean } | undefined)?.confirm === true;
    return `${confirmed ? 'welcome' : 'bye'}, ${name} (task ${taskId ?? 'none'})`;
  });
  // Progress from inside the task, after its request was answered with the task.
  server.tool('steps', { taskSupport: 'required' }, async (_args, ctx) => {
    await probe.stepsRelease.promise;
    ctx.progress(1, 2, 'halfway');
    await probe.stepsFinish.promise;
    return 'stepped';
  });
  // A protocol error: the task fails with it.
  server.tool('refuse', { taskSupport: 'required' }, () => {
    throw new McpError(-32602, 'refused on purpose');
  });
  return server;
}

export interface TasksServer {
  readonly url: string;
  readonly mcpUrl: string;
  readonly handler: McpHandler;
  readonly probe: Probe;
  /** Every request the handler finished, in order. */
  readonly events: RequestEvent[];
  /** Fresh gates for the next test. */
  reset(): void;
  close(): Promise<void>;
}

/** Serves the task tools on 127.0.0.1 (a free port) through the Node adapter. */
export async function startTasksServer(): Promise<TasksServer> {
  let probe = new Probe();
  const events: RequestEvent[] = [];
  // The tools read the probe through this indirection, so `reset()` can replace it.
  const current = new Proxy({} as Probe, {
    get: (_target, key) => probe[key as keyof Probe],
  });
  const handler = createMcpHandler(createTasksServer(current), {
    // Short polls keep the tests quick; clients follow the server's hint.
    tasks: { pollIntervalMs: 100 },
    requestState: { secret: 'sdk-tasks-e2e' },
    onRequest: (event) => events.push(event),
  });
  const listening: NodeServer = await serve(handler, {
    port: 0,
    hostname: '127.0.0.1',
    shutdownSignals: false,
  });
  return {
    url: listening.url,
    mcpUrl: `${listening.url}/mcp`,
    handler,
    get probe() {
      return probe;
    },
    events,
    reset() {
      probe = new Probe();
      events.length = 0;
    },
    close: () => listening.close(),
  };
}
