/**
 * A POST whose answer is an event stream, read as it arrives over node:http: every JSON-RPC
 * message is kept with its arrival time (`performance.now()`, the clock the probes time with), so
 * a probe can wait for the next message it expects and know when it came.
 */
import { type Agent, request } from 'node:http';
import { SseParser } from '@edge-mcp/test-kit';

/** A JSON-RPC message as it came (a request, a notification or an answer). */
export interface Message {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: { content?: { text?: string }[] } & Record<string, unknown>;
  error?: unknown;
}

export interface Arrival {
  message: Message;
  at: number;
}

export interface SseStream {
  status: number;
  /**
   * The first message not taken yet that `match` accepts, as soon as it is there; rejects naming
   * `what` after `timeoutMs` or when the stream ends without it.
   */
  next(match: (message: Message) => boolean, what: string, timeoutMs?: number): Promise<Arrival>;
  /** When the answer ended (its last byte, or the connection closing). */
  ended: Promise<number>;
  close(): void;
}

/** POSTs `body` and resolves once the answer's head arrived (any status: the caller checks). */
export function postStream(
  url: string,
  headers: Record<string, string>,
  body: string,
  agent: Agent | false = false,
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent });
    req.on('error', reject);
    req.on('response', (res) => {
      const arrived: (Arrival | undefined)[] = [];
      const waiters = new Set<() => void>();
      let done = false;
      const parser = new SseParser();
      const ended = new Promise<number>((resolveEnd) => {
        const end = () => {
          if (done) return;
          done = true;
          resolveEnd(performance.now());
          for (const waiter of waiters) waiter();
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        for (const event of parser.push(chunk)) {
          if (event.data.trim() !== '') arrived.push({ message: JSON.parse(event.data), at });
        }
        for (const waiter of waiters) waiter();
      });
      const next: SseStream['next'] = (match, what, timeoutMs = 5000) =>
        new Promise((resolveNext, rejectNext) => {
          const settle = (error?: Error) => {
            clearTimeout(timer);
            waiters.delete(look);
            if (error) rejectNext(error);
          };
          const look = () => {
            const index = arrived.findIndex((item) => item !== undefined && match(item.message));
            if (index >= 0) {
              const found = arrived[index]!;
              arrived[index] = undefined;
              settle();
              resolveNext(found);
            } else if (done) settle(new Error(`the stream ended before ${what}`));
          };
          const timer = setTimeout(
            () => settle(new Error(`no ${what} in ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiters.add(look);
          look();
        });
      resolve({ status: res.statusCode ?? 0, next, ended, close: () => req.destroy() });
    });
    req.end(body);
  });
}
