/**
 * The soak: a real HTTP server (`serve()` from `@edge-mcp/adapters/node` on 127.0.0.1, port 0)
 * and concurrent clients for N seconds — mixed 2026-07-28 calls, legacy sessions opened, used
 * (progress streams, elicitation answered over POST, GET streams) and DELETEd, 30 % of calls
 * dropped mid-way (an AbortController, or the socket destroyed), and stalled readers: SSE streams
 * opened and never read while the server writes to them in a loop.
 *
 * Afterwards in-flight requests, open streams and sessions return to zero (sessions not deleted by
 * their client are DELETEd first), and the heap after GC stays within a bound of its baseline
 * (measured after a warm-up of the same traffic).
 */
import { request as httpRequest } from 'node:http';
import { type NodeServer, serve } from '@edge-mcp/adapters/node';
import { createMcpHandler, LEGACY_VERSIONS, type McpHandler } from '@edge-mcp/core';
import {
  initialize,
  legacy,
  legacyDelete,
  legacyGet,
  modern,
  modernHeaders,
  modernMessage,
  post,
  SseReader,
} from '@edge-mcp/test-kit';
import { activeResources, grownResources, MiB, settledHeap, waitUntil } from '../leaks.ts';
import { createFuzzServer, LANGUAGES, NOTE_IDS, README_URI } from '../server.ts';

export interface SoakOptions {
  /** How long the clients run (after the warm-up). */
  seconds: number;
  /** Concurrent clients. */
  clients: number;
  /** Share of calls the client drops mid-way. @default 0.3 */
  dropRate?: number;
  /** Streams opened and never read, kept open at any time. */
  stalledReaders: number;
  /** Allowed heap growth after GC, against the baseline (bytes). @default 16 MiB */
  heapBound?: number;
  /** Seconds of the same traffic before the heap baseline is taken. @default 2 */
  warmupSeconds?: number;
  seed?: number;
  /** Progress lines (every few seconds). */
  log?: (line: string) => void;
}

export interface SoakSummary {
  seconds: number;
  seed: number;
  clients: number;
  /** HTTP exchanges the clients started. */
  requests: number;
  modernCalls: number;
  legacySessions: number;
  legacyDeletedByClient: number;
  legacyDeletedAtEnd: number;
  drops: { abort: number; destroy: number };
  stalls: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Anything unexpected, by kind (a 5xx, a network error on a call not dropped, a bad body). */
  errors: Record<string, number>;
  /** An example of each error kind. */
  examples: Record<string, string>;
  handler: ReturnType<McpHandler['stats']>;
  after: { inFlight: number; openStreams: number; sessions: number };
  heap: { baseline: number; after: number; growth: number; bound: number };
  /** Refed handles (sockets, servers, timers) the process holds after the server closed, beyond its baseline. */
  leftoverHandles: Record<string, number>;
  closeMs: number;
}

/** What the soak reads of a JSON-RPC message. */
interface RpcMessage {
  id?: unknown;
  method?: unknown;
  result?: { resultType?: unknown; requestState?: unknown };
  error?: unknown;
}

/** A subscribed resource URI this long makes each update a few KiB, so stalled streams fill fast. */
const LONG_URI = `notes://${'x'.repeat(8000)}`;

/** Note ids a header carries as they are (the others need the Base64 form, which the kit leaves to the fuzz). */
const ASCII_NOTES = NOTE_IDS.filter((id) => /^[\x20-\x7e]+$/.test(id));

/** Seeded PRNG (mulberry32): a soak's choices can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

class Soak {
  readonly rng: () => number;
  readonly url: string;
  readonly handler: McpHandler;
  readonly server: ReturnType<typeof createFuzzServer>;
  readonly dropRate: number;
  deadline = 0;
  /** Legacy sessions open now (DELETEd at the end when their client did not). */
  readonly sessions = new Set<string>();
  readonly summary: Omit<
    SoakSummary,
    'handler' | 'after' | 'heap' | 'leftoverHandles' | 'closeMs' | 'seconds'
  >;

  constructor(
    url: string,
    handler: McpHandler,
    server: ReturnType<typeof createFuzzServer>,
    options: SoakOptions,
    seed: number,
  ) {
    this.url = url;
    this.handler = handler;
    this.server = server;
    this.rng = prng(seed);
    this.dropRate = options.dropRate ?? 0.3;
    this.summary = {
      seed,
      clients: options.clients,
      requests: 0,
      modernCalls: 0,
      legacySessions: 0,
      legacyDeletedByClient: 0,
      legacyDeletedAtEnd: 0,
      drops: { abort: 0, destroy: 0 },
      stalls: 0,
      statuses: {},
      errors: {},
      examples: {},
    };
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rng() * items.length)] as T;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.rng() * (max - min + 1));
  }

  error(kind: string, example: string): void {
    this.summary.errors[kind] = (this.summary.errors[kind] ?? 0) + 1;
    this.summary.examples[kind] ??= example.slice(0, 300);
  }

  status(response: { status: number }, what: string): void {
    const key = String(response.status);
    this.summary.statuses[key] = (this.summary.statuses[key] ?? 0) + 1;
    // The soak's requests are well-formed: anything but 200/202 is unexpected.
    if (response.status !== 200 && response.status !== 202)
      this.error(`http-${response.status}`, what);
  }

  /** A fetch that is not meant to be dropped: any failure is an error. */
  async fetch(init: RequestInit, what: string): Promise<Response | undefined> {
    this.summary.requests++;
    try {
      const response = await fetch(this.url, init);
      this.status(response, what);
      return response;
    } catch (error) {
      this.error('network', `${what}: ${describe(error)}`);
      return undefined;
    }
  }

  /** Reads an answer to its end, answering the server's questions on a legacy stream. */
  async read(
    response: Response,
    what: string,
    session?: string,
    version?: string,
  ): Promise<RpcMessage> {
    const type = response.headers.get('content-type') ?? '';
    try {
      if (!type.startsWith('text/event-stream')) {
        const text = await response.text();
        const message = text === '' ? {} : JSON.parse(text);
        return message as RpcMessage;
      }
      const reader = new SseReader(response);
      let last: RpcMessage | undefined;
      for await (const message of reader) {
        last = message as RpcMessage;
        if (typeof message.method === 'string' && message.id !== undefined && session) {
          // The server asks (elicitation): answer over POST on the session.
          const answer = await this.fetch(
            post(
              {
                jsonrpc: '2.0',
                id: message.id,
                result: { action: 'accept', content: { name: 'soak' } },
              },
              session,
              { version },
            ),
            'answer',
          );
          await answer?.body?.cancel();
        }
      }
      return last ?? {};
    } catch (error) {
      this.error('bad-body', `${what}: ${describe(error)}`);
      return {};
    }
  }

  /**
   * A call the client drops mid-way: its AbortController fires after a few milliseconds, or
   * (through node:http) its socket is destroyed.
   */
  async dropped(init: RequestInit, what: string): Promise<void> {
    const after = this.int(0, 40);
    this.summary.requests++;
    if (this.rng() < 0.5) {
      this.summary.drops.abort++;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), after);
      try {
        const response = await fetch(this.url, { ...init, signal: controller.signal });
        this.status(response, what);
        await response.arrayBuffer();
      } catch {
        // The abort, as intended (or the answer was already complete).
      } finally {
        clearTimeout(timer);
      }
      return;
    }
    this.summary.drops.destroy++;
    await new Promise<void>((resolve) => {
      const req = httpRequest(this.url, {
        method: init.method,
        headers: init.headers as Record<string, string>,
        agent: false,
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve();
      }, after);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      req.on('error', done);
      req.on('response', (res) => {
        this.status({ status: res.statusCode ?? 0 }, what);
        res.on('data', () => {});
        res.on('error', done);
        res.on('close', done);
      });
      req.end(init.body as string | undefined);
    });
  }

  /** Either a full call or (dropRate) a dropped one. */
  async call(init: RequestInit, what: string, session?: string, version?: string) {
    if (this.rng() < this.dropRate) {
      await this.dropped(init, what);
      return undefined;
    }
    const response = await this.fetch(init, what);
    if (!response) return undefined;
    return this.read(response, what, session, version);
  }

  /** One 2026-07-28 call, chosen at random (input-required answered with a retry). */
  async modernCall(): Promise<void> {
    this.summary.modernCalls++;
    const caps = { elicitation: {} };
    const progress = { progressToken: this.int(1, 1e6) };
    const choices: Array<[string, Record<string, unknown>, Record<string, unknown>?]> = [
      ['tools/call', { name: 'echo', arguments: { text: 'soak' } }],
      [
        'tools/call',
        { name: 'chatty', arguments: { count: this.int(1, 20), pauseMs: this.int(0, 3) } },
        progress,
      ],
      ['tools/call', { name: 'slow', arguments: { ms: this.int(0, 60) } }, progress],
      ['tools/call', { name: 'ask', arguments: {} }],
      ['resources/read', { uri: `notes://${this.pick(ASCII_NOTES)}` }],
      ['resources/read', { uri: README_URI }],
      ['prompts/get', { name: 'review', arguments: { language: this.pick(LANGUAGES) } }],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 't' } },
      ],
      ['tools/list', {}],
      ['server/discover', {}],
    ];
    const [method, params, meta] = this.pick(choices);
    const message = await this.call(
      modern(method, params, {
        capabilities: caps,
        meta: { ...meta, 'io.modelcontextprotocol/logLevel': 'info' },
      }),
      method,
    );
    const result = message?.result;
    if (result?.resultType === 'input_required') {
      const retry = await this.fetch(
        modern(
          method,
          {
            ...params,
            requestState: result.requestState,
            inputResponses: { name: { action: 'accept', content: { name: 'soak' } } },
          },
          { capabilities: caps },
        ),
        'retry',
      );
      if (retry) {
        const answer = await this.read(retry, 'retry');
        if (answer.result?.resultType !== 'complete')
          this.error('retry-not-complete', JSON.stringify(answer).slice(0, 200));
      }
    }
  }

  /** A legacy session: opened, used (calls, a GET stream now and then), DELETEd (mostly). */
  async legacySession(): Promise<void> {
    const version = this.pick(LEGACY_VERSIONS);
    let session: string | undefined;
    try {
      this.summary.requests += 2;
      session = (await initialize(this.url, version, { elicitation: {} })).session;
    } catch (error) {
      this.error('initialize', describe(error));
      return;
    }
    if (!session) return;
    this.summary.legacySessions++;
    this.sessions.add(session);
    const calls = this.int(1, 4);
    for (let i = 0; i < calls && performance.now() < this.deadline; i++) {
      const choices: Array<[string, Record<string, unknown>]> = [
        ['tools/call', { name: 'echo', arguments: { text: 'soak' } }],
        [
          'tools/call',
          {
            name: 'chatty',
            arguments: { count: this.int(1, 10), pauseMs: this.int(0, 3) },
            _meta: { progressToken: this.int(1, 1e6) },
          },
        ],
        ['tools/call', { name: 'ask', arguments: {} }],
        ['tools/call', { name: 'slow', arguments: { ms: this.int(0, 60) } }],
        ['resources/read', { uri: README_URI }],
        ['prompts/list', {}],
      ];
      const [method, params] = this.pick(choices);
      await this.call(
        legacy(method, params, session, { version }),
        `legacy ${method}`,
        session,
        version,
      );
    }
    if (this.rng() < 0.2) {
      // The session's GET stream, read for a moment, then dropped.
      const controller = new AbortController();
      const response = await this.fetch(
        { ...legacyGet(session, undefined, { version }), signal: controller.signal },
        'legacy GET',
      );
      if (response?.body) {
        const reader = new SseReader(response);
        await Promise.race([reader.next().catch(() => undefined), delay(this.int(5, 50))]);
        await reader.cancel().catch(() => {});
      }
    }
    if (this.rng() < 0.85) {
      const response = await this.fetch(legacyDelete(session, { version }), 'DELETE');
      await response?.body?.cancel();
      this.sessions.delete(session);
      this.summary.legacyDeletedByClient++;
    }
  }

  async client(): Promise<void> {
    while (performance.now() < this.deadline) {
      try {
        if (this.rng() < 0.55) await this.modernCall();
        else await this.legacySession();
      } catch (error) {
        this.error('client', describe(error));
      }
    }
  }

  /**
   * A stalled reader: a listen stream (or a legacy session's GET stream) opened with node:http and
   * paused, never read, for a while; then its socket is destroyed and another one opened.
   */
  async stalledReader(): Promise<void> {
    while (performance.now() < this.deadline) {
      this.summary.stalls++;
      let session: string | undefined;
      let headers: Record<string, string>;
      let method = 'GET';
      let body: string | undefined;
      if (this.rng() < 0.6) {
        const params = {
          notifications: { toolsListChanged: true, resourceSubscriptions: [LONG_URI] },
        };
        method = 'POST';
        headers = modernHeaders('subscriptions/listen', params);
        body = JSON.stringify(modernMessage('subscriptions/listen', params));
      } else {
        try {
          this.summary.requests += 2;
          session = (await initialize(this.url, '2025-11-25')).session;
        } catch (error) {
          this.error('initialize', describe(error));
          return;
        }
        if (!session) return;
        this.sessions.add(session);
        // Subscribed, so the session's GET stream gets the big updates too.
        const subscribed = await this.fetch(
          legacy('resources/subscribe', { uri: LONG_URI }, session, { version: '2025-11-25' }),
          'subscribe',
        );
        await subscribed?.body?.cancel();
        headers = {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        };
      }
      this.summary.requests++;
      // Long enough to fill the socket buffers of both ends (several MiB on loopback) and then the
      // stream's own bound.
      const hold = this.int(2000, 6000);
      await new Promise<void>((resolve) => {
        const req = httpRequest(this.url, { method, headers, agent: false });
        const timer = setTimeout(
          () => {
            req.destroy();
            resolve();
          },
          Math.min(hold, Math.max(0, this.deadline - performance.now())),
        );
        req.on('error', () => {
          clearTimeout(timer);
          resolve();
        });
        req.on('response', (res) => {
          this.status({ status: res.statusCode ?? 0 }, 'stalled reader');
          res.pause();
          res.on('error', () => {});
        });
        req.end(body);
      });
      if (session) {
        const response = await this.fetch(legacyDelete(session), 'DELETE stalled');
        await response?.body?.cancel();
        this.sessions.delete(session);
      }
    }
  }

  /** The server writes while the stalled readers do not read. */
  async notifier(): Promise<void> {
    while (performance.now() < this.deadline) {
      this.server.notifyListChanged('tools');
      this.server.notifyResourceUpdated(LONG_URI);
      await delay(2);
    }
  }

  async run(seconds: number, clients: number, stalled: number): Promise<void> {
    this.deadline = performance.now() + seconds * 1000;
    await Promise.all([
      ...Array.from({ length: clients }, () => this.client()),
      ...Array.from({ length: stalled }, () => this.stalledReader()),
      stalled > 0 ? this.notifier() : undefined,
    ]);
  }

  /** DELETEs the sessions their clients left open. */
  async deleteLeftovers(): Promise<number> {
    let deleted = 0;
    for (const session of [...this.sessions]) {
      const response = await this.fetch(legacyDelete(session), 'DELETE leftover');
      await response?.body?.cancel();
      if (response?.status === 200) deleted++;
      this.sessions.delete(session);
    }
    return deleted;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/** Runs the soak; resolves with its summary (it never throws for a broken invariant: check the summary). */
export async function soak(options: SoakOptions): Promise<SoakSummary> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const log = options.log ?? (() => {});
  const handlesBefore = activeResources();
  const server = createFuzzServer();
  const handler = createMcpHandler(server, {
    // Dropped legacy requests let go of their handler soon; a stalled stream overflows soon.
    disconnectGraceMs: 200,
    keepAliveMs: 1000,
    limits: { maxQueuedBytes: 256 * 1024, maxUriLength: 16 * 1024 },
  });
  const serverErrors: string[] = [];
  const running: NodeServer = await serve(handler, {
    port: 0,
    hostname: '127.0.0.1',
    shutdownSignals: false,
    onError: (error) => serverErrors.push(describe(error)),
  });
  const url = `${running.url}/mcp`;
  const driver = new Soak(url, handler, server, options, seed);
  const settle = async (what: string) => {
    const deleted = await driver.deleteLeftovers();
    await waitUntil(
      () => {
        const stats = handler.stats();
        return stats.inFlight === 0 && stats.openStreams === 0 && stats.sessions === 0;
      },
      10_000,
      () => `${what}: ${JSON.stringify(handler.stats())}`,
    ).catch((error: Error) => driver.error('not-settled', error.message));
    return deleted;
  };

  try {
    // Warm-up: the same traffic, so the baseline includes what a running server keeps
    // (compiled code, pools, caches).
    await driver.run(options.warmupSeconds ?? 2, options.clients, options.stalledReaders);
    await settle('after warm-up');
    const baseline = await settledHeap();
    log(`warm-up done, heap baseline ${(baseline / MiB).toFixed(1)} MiB`);

    const started = performance.now();
    const ticker = setInterval(() => {
      const s = driver.summary;
      log(
        `${Math.round((performance.now() - started) / 1000)} s: ${s.requests} requests, ` +
          `${s.drops.abort + s.drops.destroy} drops, ${s.stalls} stalls, ` +
          `errors ${JSON.stringify(s.errors)}, ${JSON.stringify(handler.stats())}, ` +
          `heap ${(process.memoryUsage().heapUsed / MiB).toFixed(1)} MiB`,
      );
    }, 10_000);
    try {
      await driver.run(options.seconds, options.clients, options.stalledReaders);
    } finally {
      clearInterval(ticker);
    }
    const seconds = (performance.now() - started) / 1000;
    driver.summary.legacyDeletedAtEnd = await settle('after the soak');
    const stats = handler.stats();
    const after = await settledHeap();
    const closing = performance.now();
    await running.close();
    const closeMs = performance.now() - closing;
    for (const error of serverErrors) driver.error('server-reported', error);
    // Sockets the server closed leave the process within a few turns.
    let leftoverHandles: Record<string, number> = {};
    await waitUntil(
      () => {
        leftoverHandles = grownResources(handlesBefore, activeResources());
        return Object.keys(leftoverHandles).length === 0;
      },
      5_000,
      () => '',
    ).catch(() => {});
    const bound = options.heapBound ?? 16 * MiB;
    return {
      ...driver.summary,
      seconds,
      handler: stats,
      after: { inFlight: stats.inFlight, openStreams: stats.openStreams, sessions: stats.sessions },
      heap: { baseline, after, growth: after - baseline, bound },
      leftoverHandles,
      closeMs,
    };
  } finally {
    await running.close();
  }
}

/** Human-readable lines of a summary. */
export function formatSoak(s: SoakSummary): string {
  const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
  return [
    `soak: ${s.seconds.toFixed(1)} s, ${s.clients} clients, seed ${s.seed}`,
    `  requests ${s.requests} (${Math.round(s.requests / s.seconds)}/s): ${s.modernCalls} 2026-07-28 calls, ${s.legacySessions} legacy sessions (${s.legacyDeletedByClient} deleted by their client, ${s.legacyDeletedAtEnd} at the end)`,
    `  drops ${s.drops.abort + s.drops.destroy} (${s.drops.abort} aborted, ${s.drops.destroy} sockets destroyed), stalled readers ${s.stalls}, streams overflowed ${s.handler.overflowed}, notifications dropped ${s.handler.dropped}`,
    `  statuses ${JSON.stringify(s.statuses)}`,
    `  errors ${JSON.stringify(s.errors)}${Object.keys(s.examples).length ? ` e.g. ${JSON.stringify(s.examples)}` : ''}`,
    `  after: inFlight ${s.after.inFlight}, openStreams ${s.after.openStreams}, sessions ${s.after.sessions}; close ${Math.round(s.closeMs)} ms; leftover handles ${JSON.stringify(s.leftoverHandles)}`,
    `  heap: baseline ${mib(s.heap.baseline)}, after ${mib(s.heap.after)}, growth ${mib(s.heap.growth)} (bound ${mib(s.heap.bound)})`,
  ].join('\n');
}
