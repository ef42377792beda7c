/**
 * What the cluster scenarios share: the instance and target they drive, the tools the instances
 * serve, and the requests the scenarios send.
 */
import { expect } from 'vitest';
import {
  initializeParams,
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  postRequest,
} from '../legacy.ts';
import { modernRequest } from '../modern.ts';
import { SseReader } from '../sse-reader.ts';
import { sleep } from '../wait.ts';

/** One instance of the cluster, as the scenarios drive it. */
export interface ClusterNode {
  readonly handler: {
    fetch(request: Request): Promise<Response>;
    stats(): { openStreams: number };
  };
  readonly server: {
    notifyListChanged(list: 'tools' | 'prompts' | 'resources'): void;
    notifyResourceUpdated(uri: string): void;
  };
  /** Signals of the tool handlers that ran here, in start order. */
  readonly signals: AbortSignal[];
  /** Sessions whose end this instance reported (`onSessionClose`). */
  readonly closes: ReadonlyArray<{ sessionId: string; reason?: unknown }>;
  /** Resolves when the next tool handler starts here. */
  started(): Promise<AbortSignal>;
  /** This instance stops (`handler.close()`, then its backend's). */
  stop(): Promise<void>;
}

export interface ClusterTarget {
  /**
   * `count` instances over one fresh shared store and bus, with `disconnectGraceMs`; `legacy:
   * false` for instances that serve only 2026-07-28 (the bus without sessions). Stopped by the
   * target after each test.
   */
  start(
    count: number,
    options: { disconnectGraceMs?: number; legacy?: boolean },
  ): Promise<ClusterNode[]>;
  /** The operator's closeAll, from `node`: every session of the cluster ends. */
  closeAll(node: ClusterNode, reason: 'session-deleted'): Promise<unknown>;
  /** The stored messages of a session's events. */
  storedMessages(session: string): Promise<string[]>;
  /** Messages `node` received from other instances so far (relayed events among them). */
  received(node: ClusterNode): number;
}

/** A server the scenarios can drive (the core's `McpServer`, structurally). */
interface ToolServer {
  tool(
    name: string,
    config: { inputSchema?: Record<string, unknown>; [option: string]: unknown },
    handler: (args: any, ctx: any) => unknown,
  ): unknown;
  resource(name: string, uri: string, config: object, read: () => string): unknown;
  prompt(name: string, config: object, get: () => string): unknown;
}

const NUMBERS = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((name) => [name, { type: 'number' }])),
});

/**
 * Registers the scenarios' tools on `server`; `begin(signal)` is told of each handler that
 * starts (the node's `signals` and `started()`).
 */
export function addClusterTools(server: ToolServer, begin: (signal: AbortSignal) => void): void {
  server.tool('sleep', { inputSchema: NUMBERS('ms') }, async (args, ctx) => {
    begin(ctx.signal);
    await sleep(args.ms, ctx.signal);
    ctx.signal.throwIfAborted();
    return 'slept';
  });
  server.tool('drip', { inputSchema: NUMBERS('count', 'ms') }, async (args, ctx) => {
    begin(ctx.signal);
    for (let i = 1; i <= args.count; i++) {
      ctx.progress(i, args.count);
      // Two at once now and then: appends in flight while a relay attaches.
      if (i % 3 === 0 && i < args.count) ctx.progress(++i, args.count);
      await sleep(args.ms, ctx.signal);
      ctx.signal.throwIfAborted();
    }
    return 'dripped';
  });
  server.tool('ask', {}, async (_args, ctx) => {
    begin(ctx.signal);
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `hello ${answer.content.name}`;
  });
  server.tool('count', {}, (_args, ctx) => {
    const state = ctx.session?.state as Map<string, unknown>;
    const n = ((state.get('n') as number | undefined) ?? 0) + 1;
    state.set('n', n);
    return String(n);
  });
  server.resource('watched', 'test://watched', {}, () => 'watched');
  server.prompt('greeting', {}, () => 'hello');
}

/** A node's side of the task tools: who it is, who starts, and the wait a test releases. */
export interface TaskToolNode {
  readonly tag: string;
  begin(signal: AbortSignal): void;
  /** Resolves when the test releases the node's handlers (or `signal` aborts). */
  hold(signal: AbortSignal): Promise<void>;
}

/**
 * The task tests' tools: `compute` (may not run again), `again` (idempotent: may run again
 * after its runner is lost; says where it ran), both until released, and `question` (waits in
 * `input_required` for a `name`).
 */
export function addTaskTools(server: ToolServer, node: TaskToolNode): void {
  server.tool('compute', { taskSupport: 'required' }, async (_args, ctx) => {
    node.begin(ctx.signal);
    await node.hold(ctx.signal);
    ctx.signal.throwIfAborted();
    return 'computed';
  });
  const idempotent = { taskSupport: 'required', annotations: { idempotentHint: true } };
  server.tool('again', idempotent, async (_args, ctx) => {
    node.begin(ctx.signal);
    await node.hold(ctx.signal);
    ctx.signal.throwIfAborted();
    return `again on ${node.tag}`;
  });
  server.tool('question', { taskSupport: 'required' }, async (_args, ctx) => {
    node.begin(ctx.signal);
    const answer = await ctx.elicit(
      { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
      'name',
    );
    return `answered ${answer.content.name}`;
  });
}

export const V = '2025-11-25';
export const ELICIT = { elicitation: { form: {} } };

export function tool(name: string, args: Record<string, unknown> = {}, progress = false) {
  return progress
    ? { name, arguments: args, _meta: { progressToken: 'p' } }
    : { name, arguments: args };
}

export function ping(node: ClusterNode, session: string): Promise<Response> {
  return node.handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

/**
 * One request to each legacy entry point a client uses on `session`: a request, `initialize`, the
 * GET stream, DELETE, a notification and a 2025-03-26 batch, for checks that every one of them
 * is answered alike (the storage away: 503 with Retry-After).
 */
export async function everyEntryPoint(
  node: Pick<ClusterNode, 'handler'>,
  session: string,
): Promise<Response[]> {
  const cancel = { requestId: 1 };
  const requests = [
    legacyRequest('ping', {}, session, { version: V }),
    legacyRequest('initialize', initializeParams(V)),
    legacyGetRequest(session, undefined, { version: V }),
    legacyDeleteRequest(session, { version: V }),
    notificationRequest('notifications/cancelled', cancel, session, { version: V }),
    postRequest([{ jsonrpc: '2.0', id: 1, method: 'ping' }], session, { version: '2025-03-26' }),
  ];
  const answers: Response[] = [];
  for (const request of requests) answers.push(await node.handler.fetch(request));
  return answers;
}

/** Every answer is the storage-unavailable refusal: 503, `Retry-After`, -32000. */
export async function expectStorageUnavailable(
  answers: readonly Response[],
  retryAfter: string,
): Promise<void> {
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe(retryAfter);
    const body = await answer.json();
    expect(body.error).toMatchObject({ code: -32000, message: 'Session storage is unavailable' });
  }
}

export function call(
  node: ClusterNode,
  session: string,
  name: string,
  args = {},
  progress = false,
) {
  return node.handler.fetch(
    legacyRequest('tools/call', tool(name, args, progress), session, { version: V }),
  );
}

export function get(node: ClusterNode, session: string, lastEventId?: string): Promise<SseReader> {
  return node.handler
    .fetch(legacyGetRequest(session, lastEventId, { version: V }))
    .then((response) => new SseReader(response));
}

export async function listen(node: ClusterNode, id: string): Promise<SseReader> {
  const reader = new SseReader(
    await node.handler.fetch(
      modernRequest(
        'subscriptions/listen',
        {
          notifications: {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: ['test://watched'],
          },
        },
        { id },
      ),
    ),
  );
  expect((await reader.message())?.method).toBe('notifications/subscriptions/acknowledged');
  return reader;
}

/** Starts three instances (with a disconnect grace of `grace` ms). */
export type Three = (grace?: number) => Promise<[ClusterNode, ClusterNode, ClusterNode]>;
