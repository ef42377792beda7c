/**
 * The scenarios every cluster passes (legacy sessions served by several instances over one shared
 * store and bus): any instance serves a session, cancels and client responses reach the instance
 * that holds the request, streams held elsewhere are relayed (every event once, in order), the
 * standalone stream keeps one home, DELETE and closeAll end everything once, one instance
 * stopping ends only what it holds, and list and resource notifications reach every instance.
 * The core runs them on its memory cluster double, `@edge-mcp/redis` on a real redis-server.
 * They register vitest tests (Node only); the instances serve `addClusterTools`' tools.
 */
import { describe, expect, test } from 'vitest';
import { readAnswer } from '../answer.ts';
import {
  legacyDeleteRequest,
  legacyGetRequest,
  legacyRequest,
  notificationRequest,
  postRequest,
} from '../legacy.ts';
import { modernRequest } from '../modern.ts';
import { openSession } from '../session.ts';
import { SseReader } from '../sse-reader.ts';
import { aborted, sleep } from '../wait.ts';

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
    config: { inputSchema?: Record<string, unknown> },
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

const V = '2025-11-25';
const ELICIT = { elicitation: { form: {} } };

function tool(name: string, args: Record<string, unknown> = {}, progress = false) {
  return progress
    ? { name, arguments: args, _meta: { progressToken: 'p' } }
    : { name, arguments: args };
}

function ping(node: ClusterNode, session: string): Promise<Response> {
  return node.handler.fetch(legacyRequest('ping', {}, session, { version: V }));
}

function call(node: ClusterNode, session: string, name: string, args = {}, progress = false) {
  return node.handler.fetch(
    legacyRequest('tools/call', tool(name, args, progress), session, { version: V }),
  );
}

function get(node: ClusterNode, session: string, lastEventId?: string): Promise<SseReader> {
  return node.handler
    .fetch(legacyGetRequest(session, lastEventId, { version: V }))
    .then((response) => new SseReader(response));
}

async function listen(node: ClusterNode, id: string): Promise<SseReader> {
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

/** Registers the scenarios as vitest tests against `target`. */
export function clusterScenarios(target: ClusterTarget): void {
  const three = (grace = 5000) =>
    target.start(3, { disconnectGraceMs: grace }) as Promise<
      [ClusterNode, ClusterNode, ClusterNode]
    >;
  describe('legacy sessions across instances', () => sessionScenarios(target, three));
  describe('stopping', () => stoppingScenarios(target, three));
  describe('notifications across instances', () => notificationScenarios(target, three));
}

type Three = (grace?: number) => Promise<[ClusterNode, ClusterNode, ClusterNode]>;

function sessionScenarios(target: ClusterTarget, three: Three): void {
  test('any instance serves the session; state written on one is seen on the next', async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b, b])
      counts.push(
        (await readAnswer(await call(node, session, 'count'))).message.result.content[0].text,
      );
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
  });

  test('notifications/cancelled on B aborts the handler running on A (client-cancel)', async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const started = a.started();
    const pending = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V, id: 7 }),
    );
    const signal = await started;
    const cancel = await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 7 }, session, { version: V }),
    );
    expect(cancel.status).toBe(202);
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'client-cancel' });
    expect((await pending).status).toBe(200);
  });

  test('a server→client request from A, answered by a response POSTed to C, reaches the handler on A', async () => {
    const [a, , c] = await three();
    const session = await openSession(a.handler, V, ELICIT);
    const reader = new SseReader(await call(a, session, 'ask'));
    const asked = await reader.until((m) => m.method === 'elicitation/create');
    const posted = await c.handler.fetch(
      postRequest(
        { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } },
        session,
        { version: V },
      ),
    );
    expect(posted.status).toBe(202);
    const result = await reader.until((m) => m.result !== undefined);
    expect(result.result.content[0].text).toBe('hello Ada');
  });

  test("Last-Event-ID on B relays A's live stream: every event once, in order, then the answer", async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const count = 60;
    const first = new SseReader(await call(a, session, 'drip', { count, ms: 3 }, true));
    const seen: number[] = [];
    const ids: string[] = [];
    let last: string | undefined;
    while (seen.length < 5) {
      const message = await first.message();
      if (message?.method === 'notifications/progress') {
        seen.push(message.params.progress);
        ids.push(message._eventId as string);
      }
      last = message?._eventId ?? last;
    }
    await first.cancel();
    // The handler on A goes on (the stream is resumable: grace), storing its progress.
    const before = target.received(b);
    const resumed = await get(b, session, last);
    let answer: Record<string, any> | undefined;
    for (let m = await resumed.message(); m; m = await resumed.message()) {
      if (m.method === 'notifications/progress') {
        seen.push(m.params.progress);
        ids.push(m._eventId as string);
      } else if (m.result) answer = m;
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    const seqs = ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(answer?.result.content[0].text).toBe('dripped');
    // Forwarded from A as they happened, not only replayed from the store.
    expect(target.received(b)).toBeGreaterThan(before);
    expect(a.signals[0]?.aborted).toBe(false);
    // The relay counted as B's stream, and is over.
    expect(b.handler.stats().openStreams).toBe(0);
  });

  test("a relay's client leaving gives A's handler its disconnect grace, and a resume on C within it completes", async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const first = new SseReader(await call(a, session, 'drip', { count: 30, ms: 5 }, true));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = await get(b, session, one._eventId);
    const two = await relayed.until((m) => m.method === 'notifications/progress');
    await relayed.cancel();
    const rest = await (await get(c, session, two._eventId)).rest();
    expect(rest.at(-1)?.result.content[0].text).toBe('dripped');
    expect(a.signals[0]?.aborted).toBe(false);
  });

  test("DELETE on B ends A's GET stream and call (session-deleted); onSessionClose fires once, on B", async () => {
    const nodes = await three();
    const [a, b, c] = nodes;
    const session = await openSession(a.handler, V);
    const stream = await get(a, session);
    expect((await stream.next())?.id).toBe('0-0');
    const started = a.started();
    const running = call(a, session, 'sleep', { ms: 30_000 });
    const signal = await started;
    const deleted = await b.handler.fetch(legacyDeleteRequest(session, { version: V }));
    expect(deleted.status).toBe(200);
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await running).status).toBe(404);
    for (const node of nodes) expect((await ping(node, session)).status).toBe(404);
    expect(b.closes.map((e) => e.reason)).toEqual(['session-deleted']);
    expect([...a.closes, ...c.closes]).toEqual([]);
  });

  test("a fresh GET on B relays the standalone stream homed on A (primed with A's newest id)", async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const home = await get(a, session);
    await home.next();
    a.server.notifyListChanged('tools');
    const before = await home.message();
    // B's GET takes the connection over; A still stores and sends (it is the home).
    const relayed = await get(b, session);
    expect((await relayed.next())?.id).toBe(before?._eventId);
    expect(await home.next()).toBeUndefined();
    a.server.notifyListChanged('prompts');
    expect((await relayed.message())?.method).toBe('notifications/prompts/list_changed');
    await relayed.cancel();
  });
}

function stoppingScenarios(target: ClusterTarget, three: Three): void {
  test('one instance stopping ends its streams and calls (shutdown); the session goes on elsewhere, its GET stream moves', async () => {
    const nodes = await three();
    const [a, b] = nodes;
    const session = await openSession(a.handler, V);
    const stream = await get(a, session);
    await stream.next();
    const started = a.started();
    const running = call(a, session, 'sleep', { ms: 30_000 });
    const signal = await started;
    await a.stop();
    expect(await aborted(signal, 100)).toMatchObject({ type: 'shutdown' });
    expect((await running).status).toBe(503);
    expect(await stream.next()).toBeUndefined();
    expect((await ping(b, session)).status).toBe(200);
    // The standalone stream's home was A, which is gone: B becomes its home.
    const moved = await get(b, session, '0-0');
    b.server.notifyListChanged('tools');
    expect((await moved.message())?.method).toBe('notifications/tools/list_changed');
    await moved.cancel();
    expect(nodes.flatMap((node) => node.closes)).toEqual([]);
  });

  test('the relaying instance shutting down is a disconnect for the holder (its grace, then disconnect)', async () => {
    const [a, b] = await three(100);
    const session = await openSession(a.handler, V);
    const first = new SseReader(await call(a, session, 'drip', { count: 1000, ms: 5 }, true));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = await get(b, session, one._eventId);
    await relayed.until((m) => m.method === 'notifications/progress');
    await b.stop();
    await relayed.rest();
    expect(await aborted(a.signals[0] as AbortSignal, 2000)).toMatchObject({ type: 'disconnect' });
  });

  test('an orphaned stream (its holder stopped before the answer) replays and ends with the instance-lost error, stored once', async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const first = new SseReader(
      await a.handler.fetch(
        legacyRequest('tools/call', tool('drip', { count: 1000, ms: 5 }, true), session, {
          version: V,
          id: 'call-1',
        }),
      ),
    );
    const one = await first.until((m) => m.method === 'notifications/progress');
    await a.stop();
    await first.rest();
    const replayed = await (await get(b, session, one._eventId)).rest();
    expect(replayed.at(-1)).toMatchObject({
      id: 'call-1',
      error: { code: -32603, data: { reason: 'instance-lost' } },
    });
    expect(replayed.slice(0, -1).every((m) => m.method === 'notifications/progress')).toBe(true);
    const again = await (await get(c, session, one._eventId)).rest();
    expect(again).toEqual(replayed);
    const lost = (await target.storedMessages(session)).filter((m) => m.includes('instance-lost'));
    expect(lost).toHaveLength(1);
  });

  test('closeAll on one instance ends every session on every instance, each reported once, by it', async () => {
    const nodes = await three();
    const [a, b, c] = nodes;
    const one = await openSession(a.handler, V);
    const two = await openSession(b.handler, V);
    const stream = await get(c, one);
    await stream.next();
    const started = b.started();
    const running = call(b, two, 'sleep', { ms: 30_000 });
    const signal = await started;
    await target.closeAll(a, 'session-deleted');
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await running).status).toBe(404);
    expect(a.closes.map((e) => e.sessionId).sort()).toEqual([one, two].sort());
    expect([...b.closes, ...c.closes]).toEqual([]);
    for (const node of nodes) expect((await ping(node, two)).status).toBe(404);
  });
}

function notificationScenarios(target: ClusterTarget, three: Three): void {
  test('notifyListChanged on A reaches listen streams and legacy GET streams on B and C, once each', async () => {
    const [a, b, c] = await three();
    const listenB = await listen(b, 'listen-b');
    const listenC = await listen(c, 'listen-c');
    const session = await openSession(b.handler, V);
    const stream = await get(b, session);
    await stream.next();
    a.server.notifyListChanged('tools');
    // The next event of each stream is the one change, then the next one raised (no duplicate).
    for (const reader of [listenB, listenC, stream])
      expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
    c.server.notifyListChanged('prompts');
    for (const reader of [listenB, listenC, stream])
      expect((await reader.message())?.method).toBe('notifications/prompts/list_changed');
    for (const reader of [listenB, listenC, stream]) await reader.cancel();
  });

  test('notifyResourceUpdated on C reaches the subscribed session on its GET stream on B, and listen streams', async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const subscribed = await readAnswer(
      await a.handler.fetch(
        legacyRequest('resources/subscribe', { uri: 'test://watched' }, session, { version: V }),
      ),
    );
    expect(subscribed.message.result).toEqual({});
    const listenA = await listen(a, 'listen-a');
    const stream = await get(b, session);
    await stream.next();
    c.server.notifyResourceUpdated('test://other');
    c.server.notifyResourceUpdated('test://watched');
    const updated = {
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched' },
    };
    expect(await stream.message()).toMatchObject(updated);
    expect(await listenA.message()).toMatchObject(updated);
    await stream.cancel();
    await listenA.cancel();
  });

  test('instances with the bus and no legacy sessions still fan out to their listen streams', async () => {
    const [a, b] = (await target.start(2, { legacy: false })) as [ClusterNode, ClusterNode];
    const reader = new SseReader(
      await b.handler.fetch(
        modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      ),
    );
    await reader.message();
    a.server.notifyListChanged('tools');
    expect((await reader.message())?.method).toBe('notifications/tools/list_changed');
    await reader.cancel();
  });
}
