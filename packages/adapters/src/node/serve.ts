/**
 * `serve()`: a `node:http` server for a fetch handler, with graceful shutdown.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkOptionKeys, optionKeys } from '@edge-mcp/core/adapter';
import { PROCESS_SIGNAL_HOOKS } from '../shared/process-signals.ts';
import {
  closeHandler,
  DEFAULT_HOSTNAME,
  type DrainOptions,
  healthReply,
  type ListenInfo,
  listenInfo,
  listening,
  portFromEnv,
  Readiness,
  safeReporter,
} from '../shared/serve.ts';
import type { ErrorReporter, FetchHandler, RuntimeHandlerOptions } from '../shared/types.ts';
import { SHARED_SERVE_KEYS } from '../shared/types.ts';
import { type NodeListener, type NodeListenerOptions, toNodeListener } from './listener.ts';

export type { ListenInfo } from '../shared/serve.ts';

/** Options of {@link serve}. */
export interface ServeOptions extends NodeListenerOptions, DrainOptions {
  /**
   * TCP port; `0` picks a free one (read it from the result).
   *
   * @default the `PORT` environment variable, else `8787`
   */
  port?: number;
  /**
   * Interface to bind. Keep the loopback default unless the server sits behind a proxy or a
   * firewall: MCP servers expose tools to whoever can reach them (`onWarning` is told otherwise).
   *
   * @default the `HOST` environment variable, else `'127.0.0.1'`
   */
  hostname?: string;
  /**
   * Aborting it shuts the server down gracefully, like `close()`. An already aborted signal makes
   * `serve()` reject without listening.
   *
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Process signals that trigger a graceful shutdown; a second one during shutdown exits at once
   * with `128 + signal number`. The listeners are removed when the shutdown completes. `false`
   * installs none (use it when the application handles signals itself).
   *
   * @default ['SIGINT', 'SIGTERM']
   */
  shutdownSignals?: NodeJS.Signals[] | false;
  /**
   * Called once the server listens. If it throws, the server is closed and `serve()` rejects.
   *
   * @default undefined (nothing is logged)
   */
  onListen?(info: ListenInfo): void;
  /**
   * Told once, when the server listens where other machines can reach it (a wildcard such as
   * `0.0.0.0` or `::`, or an address that is not loopback): MCP servers run tools for whoever can
   * connect. Pass `() => {}` to silence it where that is intended (behind a proxy, in a container).
   *
   * @default logs the message with `console.warn`
   */
  onWarning?(message: string): void;
  /**
   * Milliseconds a client has to send the request line and headers; after that Node answers
   * `408` and closes the connection. `0` turns it off. Must not exceed `requestTimeout` (when
   * both are on).
   *
   * @default 30000
   */
  headersTimeout?: number;
  /**
   * Milliseconds a client has to send the whole request, headers and body; after that Node
   * answers `408` (or cuts the connection if an answer has started) and closes it. It counts only
   * while the request is being received: once the body is in, the answer may stream for as long as
   * the handler keeps it open (event streams last hours). `0` turns it off.
   *
   * @default 60000
   */
  requestTimeout?: number;
  /**
   * Open TCP connections at most (idle keep-alive ones included). Past it, Node accepts each new
   * connection and closes it at once, before reading a byte: the client sees the connection
   * closed or reset, with no HTTP answer. The first refusal is reported through `onError`; count
   * them all with `server.on('drop', …)`. `0` or `Infinity` turns the limit off.
   *
   * @default 10000
   */
  maxConnections?: number;
}

/** The names {@link serve} accepts; another is refused with the nearest of them. */
const SERVE_OPTION_KEYS = optionKeys<ServeOptions>()([
  ...SHARED_SERVE_KEYS,
  'headersTimeout',
  'requestTimeout',
  'maxConnections',
]);

/** A listening server, as resolved by {@link serve}. */
export interface NodeServer extends ListenInfo {
  /** The underlying `node:http` server. */
  readonly server: Server;
  /**
   * Shuts down gracefully; see {@link serve}. Idempotent: every call (and the abort of
   * `options.signal`, or a shutdown signal) shares one shutdown.
   */
  close(): Promise<void>;
}

/**
 * Handler options Node needs: none. Node reports a client that leaves at once (the connection's
 * `close`), whatever was written. Exported for code that runs unchanged on every runtime
 * (`createMcpHandler(server, { ...RUNTIME_HANDLER_OPTIONS })`); see the Deno adapter's.
 */
export const RUNTIME_HANDLER_OPTIONS: RuntimeHandlerOptions = {};

/** Above the 60 s idle timeout of common proxies and load balancers, so they close first. */
const KEEP_ALIVE_TIMEOUT = 65_000;

/** Defaults of the options that bound what a client can hold open. */
export const NODE_SERVE_DEFAULTS = {
  headersTimeout: 30_000,
  requestTimeout: 60_000,
  maxConnections: 10_000,
} as const;

/**
 * How often Node checks the header and request timeouts: a quarter of the shorter one, between
 * 50 ms and 1 s (Node's own default, 30 s, would let a request overstay its timeout by that much).
 */
function checkingInterval(headersTimeout: number, requestTimeout: number): number {
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((ms) => ms > 0));
  return Number.isFinite(shortest)
    ? Math.min(1_000, Math.max(50, Math.floor(shortest / 4)))
    : 1_000;
}

/**
 * Serves `handler` over HTTP/1.1 and resolves once the server listens (rejects if it cannot).
 *
 * Graceful shutdown (on `close()`, on the abort of `options.signal`, or on a shutdown signal):
 * stop accepting connections, call `handler.close('shutdown')` and close idle keep-alive
 * connections; once the handler has settled, close the remaining connections (long-lived event
 * streams included) and resolve. The server then holds nothing that keeps the process alive, so
 * Node exits by itself when the application holds nothing else.
 *
 * @example
 * ```ts
 * import { serve } from '@edge-mcp/adapters/node';
 *
 * const { url } = await serve(handler, { port: 3000 });
 * ```
 */
export async function serve(
  handler: FetchHandler,
  options: ServeOptions = {},
): Promise<NodeServer> {
  // A misspelt option (`prot`) would be ignored: the server on the default port, silently.
  checkOptionKeys(options, SERVE_OPTION_KEYS, 'serve()');
  const { signal } = options;
  signal?.throwIfAborted();
  const report = safeReporter(options.onError);
  const readiness = new Readiness();
  const headersTimeout = options.headersTimeout ?? NODE_SERVE_DEFAULTS.headersTimeout;
  const requestTimeout = options.requestTimeout ?? NODE_SERVE_DEFAULTS.requestTimeout;
  // Node's requestTimeout counts until the request is received, never while the answer streams
  // (an event stream may last hours; the handler decides when it ends). Node checks both timeouts
  // every connectionsCheckingInterval, so that sets how late a slow client is cut.
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT,
    },
    withHealth(toNodeListener(handler, { onError: report }), options.health, readiness),
  );
  const maxConnections = options.maxConnections ?? NODE_SERVE_DEFAULTS.maxConnections;
  if (maxConnections > 0 && Number.isFinite(maxConnections)) {
    server.maxConnections = maxConnections;
    server.once('drop', () => {
      report(
        new Error(
          `connection limit reached: maxConnections is ${maxConnections}; further connections are closed at once (this is reported once; count them with server.on('drop'))`,
        ),
      );
    });
  }

  const hostname = options.hostname ?? (process.env.HOST || DEFAULT_HOSTNAME);
  const port = options.port ?? portFromEnv(process.env.PORT);
  await listen(server, port, hostname);
  const bound = server.address() as AddressInfo;
  const info: ListenInfo = listenInfo(hostname, bound.port, bound.address);

  // Later server errors (e.g. EMFILE on accept) must not crash the process.
  server.on('error', report);
  return listening(info, server, options, PROCESS_SIGNAL_HOOKS, () => {
    readiness.ready = false;
    return shutdown(server, handler, report, options.graceMs ?? 0);
  });
}

/** The listener, behind `/healthz` and `/readyz` unless `health` is `false`. */
function withHealth(
  listener: NodeListener,
  health: boolean | undefined,
  readiness: Readiness,
): NodeListener {
  if (health === false) return listener;
  return (req, res) => {
    const reply = healthReply(req.method ?? 'GET', req.url ?? '/', readiness);
    if (reply === undefined) return listener(req, res);
    res.writeHead(reply.status, reply.headers);
    res.end(req.method === 'HEAD' ? undefined : reply.body);
  };
}

function listen(server: Server, port: number, hostname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function shutdown(
  server: Server,
  handler: FetchHandler,
  report: ErrorReporter,
  graceMs: number,
): Promise<void> {
  const settled = closeHandler(handler, report, graceMs);
  // With a grace the server keeps listening while the handler drains: probes see `/readyz`
  // answer 503, and requests still sent here get the handler's 503 with Retry-After instead of
  // a refused connection.
  if (graceMs > 0) await settled;
  const closed = new Promise<void>((resolve) => {
    server.close(() => resolve());
  });
  server.closeIdleConnections();
  await settled;
  // Streams the handler just ended finish writing within this turn; let their last bytes out
  // before cutting what is left (connections the handler does not own, stalled writes).
  await new Promise((resolve) => setImmediate(resolve));
  server.closeAllConnections();
  await closed;
}
