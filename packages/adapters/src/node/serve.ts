/**
 * `serve()`: a `node:http` server for a fetch handler, with graceful shutdown.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROCESS_SIGNAL_HOOKS } from '../shared/process-signals.ts';
import {
  closeHandler,
  DEFAULT_HOSTNAME,
  type ListenInfo,
  listenInfo,
  listening,
  portFromEnv,
  safeReporter,
} from '../shared/serve.ts';
import type { ErrorReporter, FetchHandler } from '../shared/types.ts';
import { type NodeListenerOptions, toNodeListener } from './listener.ts';

export type { ListenInfo } from '../shared/serve.ts';

/** Options of {@link serve}. */
export interface ServeOptions extends NodeListenerOptions {
  /**
   * TCP port; `0` picks a free one (read it from the result).
   *
   * @default the `PORT` environment variable, else `8787`
   */
  port?: number;
  /**
   * Interface to bind. Keep the loopback default unless the server sits behind a proxy or a
   * firewall: MCP servers expose tools to whoever can reach them.
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
}

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

/** Above the 60 s idle timeout of common proxies and load balancers, so they close first. */
const KEEP_ALIVE_TIMEOUT = 65_000;

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
  const { signal } = options;
  signal?.throwIfAborted();
  const report = safeReporter(options.onError);
  const server = createServer(toNodeListener(handler, { onError: report }));
  // An exchange may keep streaming for hours; the handler, not a server timer, decides when it
  // ends. headersTimeout stays at Node's default and still guards against slow headers.
  server.requestTimeout = 0;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT;

  const hostname = options.hostname ?? (process.env.HOST || DEFAULT_HOSTNAME);
  const port = options.port ?? portFromEnv(process.env.PORT);
  await listen(server, port, hostname);
  const bound = (server.address() as AddressInfo).port;
  const info: ListenInfo = listenInfo(hostname, bound);

  // Later server errors (e.g. EMFILE on accept) must not crash the process.
  server.on('error', report);
  return listening(info, server, options, PROCESS_SIGNAL_HOOKS, () =>
    shutdown(server, handler, report),
  );
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
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.close(() => resolve());
  });
  const settled = closeHandler(handler, report);
  server.closeIdleConnections();
  await settled;
  // Streams the handler just ended finish writing within this turn; let their last bytes out
  // before cutting what is left (connections the handler does not own, stalled writes).
  await new Promise((resolve) => setImmediate(resolve));
  server.closeAllConnections();
  await closed;
}
