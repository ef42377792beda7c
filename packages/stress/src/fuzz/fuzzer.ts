/**
 * Drives fuzzed scenarios through one handler, in-process (`handler.fetch(request)`), and checks
 * every answer (see check.ts) and, after each scenario, that the handler has let go of it all:
 * nothing in flight, no open stream, no abort listener left on any request's signal.
 */
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from '@edge-mcp/core';
import { MemoryEventStore, SessionManager } from '@edge-mcp/core/sessions';
import { initialize, SseParser } from '@edge-mcp/test-kit';
import { abortListeners, waitUntil } from '../leaks.ts';
import { createFuzzServer } from '../server.ts';
import {
  checkJsonBody,
  checkSseData,
  checkStatus,
  checkStreamMessage,
  Finding,
  preview,
} from './check.ts';
import {
  type AnswerPlan,
  buildRequest,
  type FuzzRequest,
  type PoolSession,
  requestIdOf,
  type Scenario,
  type ServerAction,
} from './model.ts';

/** Two handler configurations: the defaults, and one with every bound and timer small. */
export type Profile = 'default' | 'tight';

export function handlerOptions(profile: Profile): McpHandlerOptions {
  // A short grace: a legacy stream the fuzz drops lets its handler go within the settle wait.
  if (profile === 'default') return { disconnectGraceMs: 15, requestState: { secret: 'fuzz' } };
  return {
    requestState: { secret: 'fuzz' },
    maxBodyBytes: 256 * 1024,
    keepAliveMs: 15,
    streamAfterMs: 10,
    disconnectGraceMs: 10,
    retryMs: 5,
    shutdownTimeoutMs: 2000,
    limits: {
      maxBatchSize: 8,
      maxInFlight: 64,
      maxInFlightPerSession: 4,
      maxStreamsPerSession: 3,
      maxPendingPerSession: 2,
      maxQueuedBytes: 32 * 1024,
      maxSubscriptions: 4,
      maxUriLength: 256,
      maxClientInfoBytes: 512,
      maxCapabilitiesBytes: 512,
      maxProgressTokenLength: 64,
    },
    sessions: new SessionManager({ idleTimeoutMs: 400, maxSessions: 24 }),
    eventStore: new MemoryEventStore({
      maxEventsPerSession: 40,
      maxEventBytesPerSession: 64 * 1024,
      maxEventBytes: 512 * 1024,
    }),
  };
}

/** Counters of what the fuzz did, for the summary. */
export interface FuzzTally {
  scenarios: number;
  exchanges: number;
  byStatus: Record<string, number>;
  sseAnswers: number;
  sseEvents: number;
  clientAborts: number;
  cancelledReads: number;
  answeredQuestions: number;
  inputRetries: number;
  resumes: number;
  erroredStreams: number;
}

export function emptyTally(): FuzzTally {
  return {
    scenarios: 0,
    exchanges: 0,
    byStatus: {},
    sseAnswers: 0,
    sseEvents: 0,
    clientAborts: 0,
    cancelledReads: 0,
    answeredQuestions: 0,
    inputRetries: 0,
    resumes: 0,
    erroredStreams: 0,
  };
}

/** Sessions kept open for the fuzz to address by index: each legacy revision, with and without elicitation. */
const POOL = [
  { version: '2025-11-25', capabilities: { elicitation: {} } },
  { version: '2025-06-18', capabilities: { elicitation: {} } },
  { version: '2025-03-26', capabilities: {} },
  { version: '2025-11-25', capabilities: {} },
  { version: '2025-03-26', capabilities: { elicitation: {} } },
  { version: '2025-11-25', capabilities: { elicitation: {}, sampling: {}, roots: {} } },
] as const;

/** How long a whole scenario may take before it counts as a hang. */
const SCENARIO_DEADLINE_MS = 15_000;
/** How long the handler may take to let go of a scenario once its client is done. */
const SETTLE_MS = 3_000;
/** `close()` must resolve within this: every handler of the fuzz server honours its signal. */
export const CLOSE_BOUND_MS = 1_000;
/** An SSE answer is read at most this long, then cancelled (not a failure: long streams exist). */
const MAX_READ_MS = 3_000;

interface RunState {
  requests: Request[];
  /**
   * The scenario ends a session, cancels a request, resumes a stream (taking it over) or closes the
   * handler: streams may end early.
   */
  disruptive: boolean;
  pending: Array<Promise<void>>;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class Fuzzer {
  readonly server = createFuzzServer();
  readonly handler: McpHandler;
  readonly tally: FuzzTally = emptyTally();
  readonly #pool: Array<PoolSession | undefined> = POOL.map(() => undefined);
  #registered = 0;

  readonly profile: Profile;

  constructor(profile: Profile) {
    this.profile = profile;
    this.handler = createMcpHandler(this.server, handlerOptions(profile));
  }

  /** Opens the pool's sessions that are gone (deleted, expired or evicted by earlier runs). */
  async refillPool(): Promise<void> {
    for (let i = 0; i < POOL.length; i++) {
      if (this.#pool[i] !== undefined) continue;
      const { version, capabilities } = POOL[i] as (typeof POOL)[number];
      const { session } = await initialize(this.handler, version, capabilities);
      if (session === undefined) throw new Error('initialize answered without a session');
      this.#pool[i] = { id: session, version };
    }
  }

  /** Runs one scenario; throws a `Finding` when an invariant breaks. */
  async run(scenario: Scenario, options: { closeAfterMs?: number } = {}): Promise<void> {
    this.tally.scenarios++;
    if (!this.handler.closed) await this.refillPool();
    const state: RunState = {
      requests: [],
      disruptive:
        options.closeAfterMs !== undefined ||
        scenario.requests.some((r) => r.httpMethod === 'DELETE' || cancels(r) || resumes(r)),
      pending: [],
    };
    const work = Promise.all([
      ...scenario.requests.map(async (r) => {
        await delay(r.delayMs);
        await this.exchange(r, state, 0);
      }),
      ...scenario.actions.map((action) => this.act(action)),
      options.closeAfterMs === undefined
        ? undefined
        : delay(options.closeAfterMs).then(async () => {
            const closeMs = await this.close();
            if (closeMs > CLOSE_BOUND_MS)
              throw new Finding(
                'slow-close',
                `close() took ${Math.round(closeMs)} ms mid-scenario`,
              );
          }),
    ]).then(async () => {
      // Answers POSTed to the server's questions, resumptions, retries.
      while (state.pending.length > 0) await Promise.all(state.pending.splice(0));
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Finding('hang', `scenario not done after ${SCENARIO_DEADLINE_MS} ms`)),
        SCENARIO_DEADLINE_MS,
      );
    });
    try {
      await Promise.race([work, hang]);
    } finally {
      clearTimeout(timer);
    }
    await this.settle();
    for (const request of state.requests) {
      const left = abortListeners(request.signal);
      if (left > 0)
        throw new Finding(
          'abort-listener-leak',
          `${left} listener(s) left on the signal of ${request.method} ${request.url}`,
        );
    }
  }

  /** Waits until nothing is in flight and no stream is open. */
  async settle(): Promise<void> {
    await waitUntil(
      () => this.handler.inFlight === 0 && this.handler.stats().openStreams === 0,
      SETTLE_MS,
      () => `handler did not settle: ${JSON.stringify(this.handler.stats())}`,
    ).catch((error: Error) => {
      throw new Finding('not-settled', error.message);
    });
  }

  async #actNow(action: ServerAction): Promise<void> {
    if (action.kind === 'list-changed') this.server.notifyListChanged(action.list);
    else if (action.kind === 'resource-updated') this.server.notifyResourceUpdated(action.uri);
    else {
      const registration = this.server.tool(`temp-${this.#registered++}`, {}, () => 'temporary');
      await delay(1);
      registration.remove();
    }
  }

  async act(action: ServerAction): Promise<void> {
    await delay(action.delayMs);
    await this.#actNow(action);
  }

  /** One HTTP exchange: send, check the status, read the body as planned, check it. */
  async exchange(r: FuzzRequest, state: RunState, depth: number): Promise<void> {
    const slot = r.session.kind === 'pool' ? r.session.index % POOL.length : undefined;
    const session = slot === undefined ? undefined : this.#pool[slot];
    const controller = new AbortController();
    const request = buildRequest(r, session, controller.signal);
    state.requests.push(request);
    this.tally.exchanges++;
    let abortTimer: ReturnType<typeof setTimeout> | undefined;
    if (r.abort.kind === 'before') controller.abort();
    else if (r.abort.kind === 'after-ms')
      abortTimer = setTimeout(() => controller.abort(), r.abort.ms);
    try {
      let response: Response;
      try {
        response = await this.handler.fetch(request);
      } catch (error) {
        throw new Finding('fetch-rejected', errorText(error));
      }
      if (r.abort.kind === 'after-headers') controller.abort();
      const status = response.status;
      this.tally.byStatus[status] = (this.tally.byStatus[status] ?? 0) + 1;
      const ctx = {
        httpMethod: r.httpMethod,
        aborted: controller.signal.aborted,
        closed: this.handler.closed,
        requestId: requestIdOf(r.body),
      };
      checkStatus(response, ctx);
      if (slot !== undefined && session !== undefined) {
        // The pool forgets a session that is gone; the next scenario opens another.
        if (
          (status === 200 && r.httpMethod === 'DELETE') ||
          (status === 404 && r.path === '/mcp' && r.host === '127.0.0.1:8787')
        ) {
          if (this.#pool[slot] === session) this.#pool[slot] = undefined;
        }
      }
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('text/event-stream')) {
        if (status !== 200) throw new Finding('sse-status', `HTTP ${status} with an event stream`);
        await this.#readStream(r, response, controller, state, session, depth);
      } else {
        const text = await response.text();
        const answer = checkJsonBody(response, text, ctx);
        const result = answer.single?.result as Record<string, unknown> | undefined;
        if (result?.resultType === 'input_required') this.#retry(r, result, state, depth);
      }
    } finally {
      clearTimeout(abortTimer);
      if (controller.signal.aborted) this.tally.clientAborts++;
    }
  }

  async #readStream(
    r: FuzzRequest,
    response: Response,
    controller: AbortController,
    state: RunState,
    session: PoolSession | undefined,
    depth: number,
  ): Promise<void> {
    this.tally.sseAnswers++;
    const body = response.body;
    if (!body) throw new Finding('sse-without-body', '');
    const reader = new TimedReader(body.getReader());
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const plan = r.read;
    const started = performance.now();
    let lastEvent = started;
    let events = 0;
    let cancelled = false;
    let ended = false;
    let lastId: string | undefined;
    let last: Record<string, unknown> | undefined;
    const cancel = async () => {
      cancelled = true;
      this.tally.cancelledReads++;
      await reader.cancel();
    };
    if (plan.kind === 'cancel-at-once') {
      await cancel();
      return;
    }
    for (;;) {
      const idleMs = plan.kind === 'full' ? plan.idleMs : 60;
      const until = Math.min(lastEvent + idleMs, started + MAX_READ_MS);
      const chunk = await reader.read(until);
      if (chunk === 'timeout') {
        await cancel();
        break;
      }
      if (chunk === 'error') {
        // A legacy stream whose client fell behind is cut (it resumes with Last-Event-ID).
        this.tally.erroredStreams++;
        if (r.era !== 'legacy' && r.httpMethod !== 'GET')
          throw new Finding('stream-errored', `${r.era} ${r.httpMethod} stream errored`);
        break;
      }
      const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      const parsed = [...parser.push(text), ...(chunk.done ? parser.end() : [])];
      let stop = false;
      for (const event of parsed) {
        if (event.id !== undefined) lastId = event.id;
        if (event.data.trim() === '') continue;
        checkSseData(event.data);
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          throw new Finding('sse-data-not-json', preview(event.data));
        }
        const message = checkStreamMessage(value);
        last = message;
        events++;
        this.tally.sseEvents++;
        lastEvent = performance.now();
        if (typeof message.method === 'string' && message.id !== undefined)
          this.#answer(r.answer, message, r, session, state, depth);
        if (r.abort.kind === 'after-events' && events === r.abort.count) controller.abort();
        if (plan.kind === 'cancel-after' && events >= plan.events) stop = true;
      }
      if (chunk.done) {
        ended = true;
        break;
      }
      if (stop) {
        await cancel();
        break;
      }
    }
    // A POSTed request's stream that ended by itself ends with its answer, unless something in the
    // scenario may end it early (DELETE, cancel, shutdown) or the client left.
    const id = requestIdOf(r.body);
    if (
      ended &&
      !cancelled &&
      !controller.signal.aborted &&
      !state.disruptive &&
      r.httpMethod === 'POST' &&
      id !== undefined &&
      !this.handler.closed
    ) {
      if (!last || 'method' in last || (last.id !== id && last.id !== null))
        throw new Finding(
          'stream-ended-without-answer',
          `last message ${preview(last)} for request ${preview(id)}`,
        );
    }
    // A legacy stream the client dropped may be resumed from the last event id it saw.
    if (
      (cancelled || controller.signal.aborted) &&
      lastId !== undefined &&
      r.era === 'legacy' &&
      r.lastEventId !== undefined &&
      depth < 2
    ) {
      this.tally.resumes++;
      state.pending.push(
        this.exchange(
          {
            ...r,
            httpMethod: 'GET',
            body: { kind: 'none' },
            headers: [],
            lastEventId: lastId,
            session: sessionOf(r, session),
            abort: { kind: 'never' },
            read: { kind: 'full', idleMs: 20 },
            delayMs: 0,
          },
          state,
          depth + 1,
        ),
      );
    }
  }

  /** Answers a server→client request seen on a legacy stream, as the plan says. */
  #answer(
    plan: AnswerPlan,
    question: Record<string, unknown>,
    r: FuzzRequest,
    session: PoolSession | undefined,
    state: RunState,
    depth: number,
  ): void {
    if (plan === 'none' || depth >= 2) return;
    this.tally.answeredQuestions++;
    const id = question.id;
    const requestId = requestIdOf(r.body);
    let value: unknown;
    switch (plan) {
      case 'accept':
        value = { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'fuzz' } } };
        break;
      case 'decline':
        value = { jsonrpc: '2.0', id, result: { action: 'decline' } };
        break;
      case 'error':
        value = { jsonrpc: '2.0', id, error: { code: -32603, message: 'no' } };
        break;
      case 'garbage':
        value = { jsonrpc: '2.0', id, result: { action: { nested: ['@@deep:2000:a@@'] } } };
        break;
      case 'tamper':
        value = { jsonrpc: '2.0', id: typeof id === 'number' ? id + 1 : `${id}x`, result: {} };
        break;
      case 'cancel':
        state.disruptive = true;
        value = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'fuzz' },
        };
        break;
    }
    state.pending.push(
      this.exchange(
        {
          ...r,
          httpMethod: 'POST',
          path: '/mcp',
          host: '127.0.0.1:8787',
          body: { kind: 'json', value },
          headers: [],
          session: sessionOf(r, session),
          lastEventId: undefined,
          abort: { kind: 'never' },
          read: { kind: 'full', idleMs: 20 },
          delayMs: 0,
        },
        state,
        depth + 1,
      ),
    );
  }

  /** A 2026-07-28 input-required result: retried with answers (and maybe a tampered state). */
  #retry(r: FuzzRequest, result: Record<string, unknown>, state: RunState, depth: number): void {
    if (r.answer === 'none' || depth >= 2 || r.body.kind !== 'json') return;
    const message = r.body.value as Record<string, unknown>;
    const params = message.params as Record<string, unknown>;
    const requests = (result.inputRequests ?? {}) as Record<string, unknown>;
    const responses: Record<string, unknown> = {};
    for (const key of Object.keys(requests)) {
      responses[key] =
        r.answer === 'decline'
          ? { action: 'decline' }
          : r.answer === 'garbage'
            ? { action: 7, content: '@@huge:1000@@' }
            : { action: 'accept', content: { name: 'fuzz' } };
    }
    let requestState = result.requestState;
    if (r.answer === 'tamper' && typeof requestState === 'string')
      requestState = `${requestState.slice(0, -2)}${requestState.endsWith('A') ? 'B' : 'A'}=`;
    this.tally.inputRetries++;
    state.pending.push(
      this.exchange(
        {
          ...r,
          body: {
            kind: 'json',
            value: {
              ...message,
              params: {
                ...params,
                requestState,
                inputResponses: r.answer === 'error' ? ['not', 'an', 'object'] : responses,
              },
            },
          },
          abort: { kind: 'never' },
          delayMs: 0,
        },
        state,
        depth + 1,
      ),
    );
  }

  /** Closes the handler; resolves with how long `close()` took. */
  async close(): Promise<number> {
    const started = performance.now();
    await this.handler.close();
    return performance.now() - started;
  }
}

/** The body is (or carries) a `notifications/cancelled`. */
function cancels(r: FuzzRequest): boolean {
  if (r.body.kind !== 'json') return false;
  const values = Array.isArray(r.body.value) ? r.body.value : [r.body.value];
  return values.some(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      (v as { method?: unknown }).method === 'notifications/cancelled',
  );
}

/**
 * A legacy GET with a Last-Event-ID may name a stream still live on another request's connection:
 * the resume takes that stream over and the first connection ends without the answer, as it should.
 */
function resumes(r: FuzzRequest): boolean {
  return r.era === 'legacy' && r.httpMethod === 'GET' && r.lastEventId !== undefined;
}

function sessionOf(r: FuzzRequest, session: PoolSession | undefined): FuzzRequest['session'] {
  return session ? { kind: 'literal', value: session.id } : r.session;
}

type Chunk = ReadableStreamReadResult<Uint8Array> | 'timeout' | 'error';

/** Reads with a deadline; a read that outlives its deadline is kept for the next call, not lost. */
class TimedReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Promise<ReadableStreamReadResult<Uint8Array> | 'error'> | undefined;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  /** The next chunk, or 'timeout' at `until` (a performance.now() time). */
  async read(until: number): Promise<Chunk> {
    this.#pending ??= this.#reader.read().catch((): 'error' => 'error');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, until - performance.now()));
    });
    try {
      const chunk = await Promise.race([this.#pending, timeout]);
      if (chunk !== 'timeout') this.#pending = undefined;
      return chunk;
    } finally {
      clearTimeout(timer);
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => {});
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : preview(error);
}
