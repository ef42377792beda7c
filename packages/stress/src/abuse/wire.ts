/**
 * The abuse mode's HTTP, below `fetch`: requests from a chosen loopback source address (the
 * attacker is 127.0.0.2, the well-behaved client 127.0.0.1, so per-client budgets tell them
 * apart), dropped at a chosen moment, or uploads that go on after the answer.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';

/** The attacker's source address (loopback; Linux routes all of 127/8 to lo). */
export const ATTACKER = '127.0.0.2';

export const ACCEPT = 'application/json, text/event-stream';

export interface Sent {
  /** The HTTP status, or 0 when the connection failed before one. */
  status: number;
  /** The session id the answer named, if any. */
  session: string | undefined;
  /** The answer's body (its first 1 MiB), when it was read to the end. */
  text?: string;
}

export interface PostOptions {
  from?: string;
  headers?: Record<string, string>;
  /**
   * `first-chunk`: the client drops the connection after the first piece of the answer's body
   * (an SSE event, or the JSON); `headers`: right after the status line; `never`: it reads it all.
   */
  drop?: 'first-chunk' | 'headers' | 'never';
}

/** POSTs `body` to `url`; resolves once the answer was read (or dropped as told). */
export function post(url: string, body: string, options: PostOptions = {}): Promise<Sent> {
  return new Promise((resolve) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress: options.from,
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          'content-length': Buffer.byteLength(body),
          ...options.headers,
        },
      },
      (res: IncomingMessage) => {
        const sent = {
          status: res.statusCode ?? 0,
          session: (res.headers['mcp-session-id'] as string | undefined) ?? undefined,
        };
        const drop = options.drop ?? 'never';
        if (drop === 'headers') {
          req.destroy();
          resolve(sent);
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (drop === 'first-chunk') {
            req.destroy();
            resolve(sent);
          } else if (text.length < 1 << 20) text += chunk;
        });
        res.on('end', () => resolve({ ...sent, text }));
        res.on('error', () => resolve(sent));
        res.on('close', () => resolve(sent));
      },
    );
    req.on('error', () => resolve({ status: 0, session: undefined }));
    req.end(body);
  });
}

/**
 * An upload of `total` bytes after headers that the server refuses: written as fast as the
 * connection takes it until the server closes it. Resolves with the status line it got and
 * the bytes written by then (a server that keeps reading gets all of them).
 */
export function refusedUpload(
  url: string,
  headers: string,
  total: number,
  from = ATTACKER,
): Promise<{ status: string; written: number }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: from });
    let answer = '';
    let written = 0;
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.once('close', () => resolve({ status: answer.split('\r\n')[0] ?? '', written }));
    socket.write(
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers}\r\nContent-Length: ${total}\r\n\r\n`,
    );
    const data = Buffer.alloc(64 * 1024, 120);
    const pump = (): void => {
      while (!socket.destroyed && written < total) {
        written += data.length;
        if (!socket.write(data)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (written >= total) socket.end();
    };
    pump();
  });
}

/** A GET stream of a session, left open; `close()` drops it. */
export function holdStream(url: string, session: string, from = ATTACKER): Promise<() => void> {
  return new Promise((resolve) => {
    const req = httpRequest(url, {
      method: 'GET',
      localAddress: from,
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    const close = () => req.destroy();
    req.on('response', (res) => {
      res.resume();
      resolve(close);
    });
    req.on('error', () => resolve(close));
    req.end();
  });
}

/** A request whose body comes one byte every `ms` until `close()`. */
export function slowBody(url: string, ms: number, from = ATTACKER): () => void {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress: from });
  socket.on('error', () => {});
  socket.write(
    `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\nContent-Length: 100000\r\n\r\n`,
  );
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write('x');
  }, ms);
  return () => {
    clearInterval(timer);
    socket.destroy();
  };
}

/** Runs `count` jobs, `parallel` at a time. */
export async function pool<T>(
  count: number,
  parallel: number,
  job: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return results;
}

/** The JSON-RPC answer in a JSON or SSE body (the last `data:` line that parses), if any. */
export function rpcAnswer(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const candidates = text.trimStart().startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .reverse();
  for (const candidate of candidates) {
    try {
      const parsed = JSON.parse(candidate) as Record<string, unknown>;
      if ('result' in parsed || 'error' in parsed) return parsed;
    } catch {
      // A comment or a partial event: the next line may be the answer.
    }
  }
  return undefined;
}
