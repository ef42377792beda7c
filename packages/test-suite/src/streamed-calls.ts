/**
 * Calls that stream while the instances of a `Deployment` are replaced (the rolling-deploy test,
 * issue 24 item 4): legacy sessions that each call `drip` one call at a time, reading its
 * progress on the answer's SSE stream. A stream that ends before the answer (its instance was
 * killed or the proxy cut it) is resumed with Last-Event-ID through the proxy, as an SDK client
 * does, until the answer or a JSON-RPC error arrives. A killed instance's calls end with the
 * `instance-lost` error its stream's new home stores; a drained one's finish or end with
 * `shutdown`. Fast calls that answer JSON have no stream to resume (the rolling test's `tally`).
 */
import { LEGACY, legacy, legacyGet, openSession, SseReader } from '@edge-mcp/test-kit';

/** How one streamed call ended. */
export interface StreamedCall {
  /** `result`, a JSON-RPC error's `data.reason` (or its message), or why it never ended. */
  outcome: string;
  /** Streams read for it (1 + its resumptions). */
  streams: number;
  /** The progress values it read, in order, across its resumptions. */
  readonly progress: number[];
}

const DRIP = { count: 20, ms: 100 };
/** Resumes of one call before it counts as never ended. */
const MAX_RESUMES = 30;

export class StreamedCalls {
  readonly calls: StreamedCall[] = [];
  readonly #url: string;
  readonly #loops: Promise<void>[] = [];
  #stopped = false;
  /** What `nextCalls()` waits for: one call per session begun at or after index `from`. */
  #next:
    | {
        from: number;
        sessions: Set<string>;
        calls: StreamedCall[];
        resolve: (calls: StreamedCall[]) => void;
      }
    | undefined;

  constructor(url: string) {
    this.#url = `${url}/mcp`;
  }

  /** `count` sessions, each calling `drip` until `quiet()`. */
  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const session = await openSession(this.#url, LEGACY);
      this.#loops.push(this.#calling(session));
    }
  }

  /**
   * Resolves with the first call each session begins from now on, once all of them have ended:
   * what the cluster does after a disruption, as opposed to during it.
   */
  nextCalls(): Promise<StreamedCall[]> {
    return new Promise((resolve) => {
      this.#next = { from: this.calls.length, sessions: new Set(), calls: [], resolve };
    });
  }

  /** Lets every session's call in progress end, and starts no more. */
  async quiet(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#loops);
  }

  async #calling(session: string): Promise<void> {
    while (!this.#stopped) {
      const call: StreamedCall = { outcome: 'unanswered', streams: 0, progress: [] };
      const index = this.calls.push(call) - 1;
      await this.#call(session, call);
      this.#ended(session, call, index);
      // Refused (its Redis shard failing over): a client waits its Retry-After (1 s) first.
      if (call.outcome === 'HTTP 503') await pause(1000);
    }
  }

  #ended(session: string, call: StreamedCall, index: number): void {
    const next = this.#next;
    if (next === undefined || index < next.from || next.sessions.has(session)) return;
    next.sessions.add(session);
    next.calls.push(call);
    if (next.calls.length === this.#loops.length) {
      this.#next = undefined;
      next.resolve(next.calls);
    }
  }

  async #call(session: string, call: StreamedCall): Promise<void> {
    const token = crypto.randomUUID();
    let response = await fetch(
      this.#url,
      legacy(
        'tools/call',
        { name: 'drip', arguments: DRIP, _meta: { progressToken: token } },
        session,
        { version: LEGACY },
      ),
    ).catch(() => undefined);
    let last: string | undefined;
    for (let resumes = 0; ; resumes++) {
      if (response?.status === 200) {
        call.streams++;
        const read = await this.#read(response, call, last);
        last = read.last;
        if (read.ended) return;
      } else await response?.body?.cancel();
      // Nothing to resume from: the call was cut before its stream began.
      if (last === undefined) {
        call.outcome = response === undefined ? 'cut before a stream' : `HTTP ${response.status}`;
        return;
      }
      if (resumes === MAX_RESUMES) {
        call.outcome = 'never ended';
        return;
      }
      await pause(100);
      response = await fetch(this.#url, legacyGet(session, last, { version: LEGACY })).catch(
        () => undefined,
      );
    }
  }

  /** Reads a stream of the call until its answer (`ended`) or until it is cut. */
  async #read(
    response: Response,
    call: StreamedCall,
    from: string | undefined,
  ): Promise<{ ended: boolean; last: string | undefined }> {
    let last = from;
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream')) {
      const message = await response.json().catch(() => undefined);
      call.outcome = outcomeOf(message);
      return { ended: true, last };
    }
    const reader = new SseReader(response);
    try {
      for (let event = await reader.next(); event; event = await reader.next()) {
        if (event.id !== undefined) last = event.id;
        if (event.data.trim() === '') continue;
        const message = JSON.parse(event.data);
        if (message.method === 'notifications/progress')
          call.progress.push(message.params.progress);
        else if ('result' in message || 'error' in message) {
          call.outcome = outcomeOf(message);
          return { ended: true, last };
        }
      }
    } catch {
      // Cut: resumed by the caller.
    }
    return { ended: false, last };
  }
}

function outcomeOf(message: { result?: unknown; error?: any } | undefined): string {
  if (message?.result !== undefined) return 'result';
  const error = message?.error;
  return error ? String(error.data?.reason ?? error.message) : 'no JSON-RPC answer';
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
