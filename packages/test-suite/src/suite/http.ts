/** Client-side helpers of the shared suite: well-formed requests of both eras, and an SSE reader. */

export const MODERN = '2026-07-28';

let nextId = 1;

export function modern(
  method: string,
  params: Record<string, unknown> = {},
  extra: {
    id?: string | number;
    meta?: Record<string, unknown>;
    headers?: Record<string, string>;
  } = {},
): RequestInit {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...extra.headers,
  };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method))
    headers['mcp-name'] = name;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra.meta,
  };
  return {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: extra.id ?? nextId++,
      method,
      params: { ...params, _meta },
    }),
  };
}

export function legacy(
  method: string,
  params: Record<string, unknown> | undefined,
  session?: string,
  extra: { id?: string | number; version?: string } = {},
): RequestInit {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (session) {
    headers['mcp-session-id'] = session;
    headers['mcp-protocol-version'] = extra.version ?? '2025-11-25';
  }
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: extra.id ?? nextId++, method };
  if (params) body.params = params;
  return { method: 'POST', headers, body: JSON.stringify(body) };
}

/** initialize + initialized; the session id (or undefined when the target serves legacy without sessions). */
export async function initialize(
  mcpUrl: string,
  version = '2025-11-25',
  capabilities: Record<string, unknown> = {},
): Promise<{ session: string | undefined; result: Record<string, any> }> {
  const response = await fetch(
    mcpUrl,
    legacy('initialize', {
      protocolVersion: version,
      capabilities,
      clientInfo: { name: 'suite', version: '1' },
    }),
  );
  const body = await response.json();
  const session = response.headers.get('mcp-session-id') ?? undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (session) headers['mcp-session-id'] = session;
  await (
    await fetch(mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return { session, result: body.result };
}

export interface SseEvent {
  id?: string;
  data: string;
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    this.#reader = response.body.getReader();
  }

  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        let seen = false;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) {
            event.id = line.slice(4);
            seen = true;
          } else if (line.startsWith('data:')) {
            data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
            seen = true;
          }
        }
        if (!seen) continue;
        event.data = data.join('\n');
        return event;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Next JSON-RPC message (priming events skipped); `_eventId` carries its SSE id. */
  async message(): Promise<(Record<string, any> & { _eventId?: string }) | undefined> {
    for (;;) {
      const event = await this.next();
      if (!event) return undefined;
      if (event.data.trim() === '') continue;
      return Object.assign(JSON.parse(event.data), { _eventId: event.id });
    }
  }

  /** Reads to the end; the messages seen. */
  async rest(): Promise<Array<Record<string, any>>> {
    const out = [];
    for (let m = await this.message(); m; m = await this.message()) out.push(m);
    return out;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** Resolves with the first log line matching `predicate`, polling the target's /__log. */
export async function waitForLog<T extends Record<string, unknown>>(
  log: () => Promise<T[]>,
  predicate: (line: T) => boolean,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = (await log()).find(predicate);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('no matching log line in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Resolves once a request is running on the server: its answer has started (a streamed answer,
 * as on workerd) or the server counts it in flight (/health, where the handler lives in-process).
 */
export async function running(url: string, answer: Promise<unknown>): Promise<void> {
  let started = false;
  const settled = answer.then(
    () => {
      started = true;
    },
    () => {
      started = true;
    },
  );
  while (!started) {
    const health = (await (await fetch(`${url}/health`)).json()) as { inFlight: number };
    if (health.inFlight >= 1) return;
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 25))]);
  }
}
