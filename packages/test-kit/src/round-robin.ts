/**
 * A round-robin HTTP proxy for cluster tests: each request goes to the next upstream in turn, so
 * consecutive requests of one session (GET streams included) land on different instances. Bodies
 * are streamed both ways as they come (an SSE answer is never buffered), and a client that leaves
 * destroys its upstream request, so the instance sees the disconnect. `/health` and `/__log` are
 * answered by the proxy itself from every upstream: the counters summed, the logs merged.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, createConnection, type NetConnectOpts, type Socket } from 'node:net';

export interface RoundRobinOptions {
  /** Answer `/health` and `/__log` from every upstream instead of forwarding them @default true */
  merge?: boolean;
  /** Called with the upstream each forwarded request went to (tests assert the rotation). */
  onForward?: (upstream: string, request: IncomingMessage) => void;
}

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The upstream base URLs, in rotation order (each stays reachable directly). */
  readonly upstreams: readonly string[];
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Sockets whose writing side failed: never kept for another request. */
const broken = new WeakSet<Socket>();

type WriteCallback = (error?: Error | null) => void;
interface Writes {
  _write(chunk: unknown, encoding: BufferEncoding, callback: WriteCallback): void;
  _writev(chunks: unknown[], callback: WriteCallback): void;
}

/**
 * Upstream connections that, as curl, browsers and reverse proxies do, keep reading when an
 * instance closed its side before the request was written whole: an answer it sent before (a 413
 * at the body limit, then `Connection: close`) is forwarded instead of the upload's EPIPE. (A
 * failed write errors a Node socket's reading side too, which then drops what it reads.) Writes
 * that fail with EPIPE are dropped; a connection that ends without an answer is still a 502.
 */
class UpstreamAgent extends Agent {
  override createConnection(options: NetConnectOpts): Socket {
    const socket = createConnection(options);
    const writes = socket as unknown as Writes;
    const tolerate =
      (callback: WriteCallback): WriteCallback =>
      (error) => {
        if ((error as NodeJS.ErrnoException | null | undefined)?.code !== 'EPIPE')
          return callback(error);
        broken.add(socket);
        callback();
      };
    const write = writes._write;
    const writev = writes._writev;
    writes._write = (chunk, encoding, callback) =>
      write.call(socket, chunk, encoding, tolerate(callback));
    if (typeof writev === 'function')
      writes._writev = (chunks, callback) => writev.call(socket, chunks, tolerate(callback));
    return socket;
  }

  override keepSocketAlive(socket: Socket): boolean {
    return !broken.has(socket) && (super.keepSocketAlive(socket) as unknown as boolean);
  }
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): never forwarded. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (!HOP.has(name) && value !== undefined) out[name] = value;
  return out;
}

/** Starts the proxy on a free loopback port in front of `upstreams` (base URLs, `http://…`). */
export async function startRoundRobin(
  upstreams: readonly string[],
  options: RoundRobinOptions = {},
): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('startRoundRobin needs at least one upstream');
  const targets = upstreams.map((base) => new URL(base));
  const merge = options.merge ?? true;
  const agent = new UpstreamAgent({ keepAlive: true });
  let next = 0;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const index = next;
    next = (next + 1) % targets.length;
    const target = targets[index] as URL;
    options.onForward?.(upstreams[index] as string, req);
    // The client's Host is kept: an instance builds its URLs (resource metadata) from it.
    const upstream = httpRequest({
      agent,
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: forwardable(req.headers),
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.headers));
      // The head goes out now: an SSE stream's client sees it before the first event.
      res.flushHeaders();
      answer.on('data', (chunk: Buffer) => {
        // Backpressure as pipe() does it, without pipe()'s end handling on an aborted answer.
        if (!res.write(chunk)) {
          answer.pause();
          res.once('drain', () => answer.resume());
        }
      });
      answer.on('end', () => {
        res.end();
        // Answered before the upload ended (the instance refused the rest): the rest is read
        // into nothing, so the client, blocked on its upload, gets to read the answer.
        if (!req.complete) {
          req.unpipe(upstream);
          req.resume();
        }
      });
      // The instance ended the connection before the body was complete: so does the proxy.
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
      });
    });
    upstream.on('error', (error) => {
      // The connection ended after a whole answer (one sent before the upload was read whole).
      if ((upstream as { res?: IncomingMessage }).res?.complete) return;
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`round-robin proxy: ${upstreams[index]} failed: ${error.message}`);
      }
    });
    // The client left (or its request broke) before the answer ended: the instance must see it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  };

  const server = createServer({ noDelay: true }, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    if (merge && req.method === 'GET' && path === '/health') {
      void health(upstreams).then(({ status, body }) => json(res, status, body));
      return;
    }
    if (merge && req.method === 'GET' && path === '/__log') {
      void mergedLog(upstreams).then(
        (lines) => json(res, 200, lines),
        (error: Error) => json(res, 502, { error: error.message }),
      );
      return;
    }
    forward(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    upstreams: [...upstreams],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

/**
 * Every upstream's `/health`: numbers summed (`inFlight`, `openStreams`, …), `ok` when every
 * instance answered ok, each instance's own answer under `instances`. 503 when one did not.
 */
async function health(upstreams: readonly string[]): Promise<{ status: number; body: unknown }> {
  const answers = await Promise.all(
    upstreams.map(async (url) => {
      try {
        const answer = (await fetchJson(`${url}/health`)) as Record<string, unknown>;
        return { url, ...answer };
      } catch (error) {
        return { url, ok: false, error: (error as Error).message };
      }
    }),
  );
  const body: Record<string, unknown> = {};
  for (const answer of answers)
    for (const [key, value] of Object.entries(answer))
      if (typeof value === 'number') body[key] = ((body[key] as number | undefined) ?? 0) + value;
  body.ok = answers.every((answer) => answer.ok === true);
  body.instances = answers;
  return { status: body.ok ? 200 : 503, body };
}

/**
 * Every reachable upstream's `/__log` lines in one array, ordered by their `at` stamp when every
 * line has one (a stable sort: lines of one instance keep their order), else instance by instance.
 */
async function mergedLog(upstreams: readonly string[]): Promise<unknown[]> {
  const logs = await Promise.all(
    upstreams.map((url) =>
      fetchJson(`${url}/__log`).then(
        (lines) => lines as unknown[],
        () => [],
      ),
    ),
  );
  const lines = logs.flat();
  const stamped = lines.every((line) => typeof (line as { at?: unknown } | null)?.at === 'number');
  if (stamped) lines.sort((a, b) => (a as { at: number }).at - (b as { at: number }).at);
  return lines;
}
