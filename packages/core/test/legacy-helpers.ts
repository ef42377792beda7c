import type { McpHandler } from '../src/index.ts';
import { URL_ } from './helpers.ts';

export interface LegacyOptions {
  session?: string;
  version?: string;
  id?: string | number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

let nextId = 1;

/** A legacy POST as the official SDK client sends it (no `_meta` protocol version). */
export function legacy(
  method: string,
  params: Record<string, unknown> | undefined,
  options: LegacyOptions = {},
): Request {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...options.headers,
  };
  if (options.session) headers['mcp-session-id'] = options.session;
  if (options.version) headers['mcp-protocol-version'] = options.version;
  const body: Record<string, unknown> = { jsonrpc: '2.0', method };
  if (options.id !== null) body.id = options.id ?? nextId++;
  if (params) body.params = params;
  return new Request(URL_, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: options.signal,
  });
}

export function notify(method: string, params: Record<string, unknown>, session: string): Request {
  return new Request(URL_, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method, params }),
  });
}

export function get(session: string, lastEventId?: string, signal?: AbortSignal): Request {
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'mcp-session-id': session,
  };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return new Request(URL_, { method: 'GET', headers, signal });
}

/** initialize + notifications/initialized; returns the session id. */
export async function openSession(
  handler: McpHandler,
  version = '2025-11-25',
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const response = await handler.fetch(
    legacy('initialize', {
      protocolVersion: version,
      capabilities,
      clientInfo: { name: 'test-client', version: '1.0.0' },
    }),
  );
  const session = response.headers.get('mcp-session-id');
  if (!session) throw new Error(`initialize failed: ${response.status} ${await response.text()}`);
  await response.text();
  await handler.fetch(notify('notifications/initialized', {}, session));
  return session;
}

export interface SseEvent {
  id?: string;
  data: string;
  retry?: number;
}

/** Reads SSE events from a body as they arrive. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  done = false;

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    this.#reader = response.body.getReader();
  }

  /** The next event (comments skipped); undefined at the end of the stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        let hasData = false;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('retry: ')) event.retry = Number(line.slice(7));
          else if (line.startsWith('data:')) {
            hasData = true;
            data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
          }
        }
        if (!hasData && event.id === undefined) continue; // a comment
        event.data = data.join('\n');
        return event;
      }
      const { done, value } = await this.#reader.read();
      if (done) {
        this.done = true;
        return undefined;
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** The next event carrying a JSON-RPC message (priming events skipped), parsed. */
  async message(): Promise<(Record<string, any> & { _eventId?: string }) | undefined> {
    for (;;) {
      const event = await this.next();
      if (!event) return undefined;
      if (event.data.trim() === '') continue;
      return Object.assign(JSON.parse(event.data), { _eventId: event.id });
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}
