/**
 * Deno adapter: serve a fetch handler with `Deno.serve`.
 *
 * Deno's own `Request` goes to the handler untouched; its `signal` is Deno's disconnect signal. The
 * core's handler is called through its fast entry with that `Request` read through (the body read
 * natively by Deno, not through a stream reader), and a complete answer becomes one `Response`.
 *
 * **Legacy abort.** Unless Deno runs with `--unstable-no-legacy-abort`, `Deno.serve` aborts
 * `request.signal` not only when the client disconnects but also right after every response that
 * was sent completely (and prints a one-time warning once something read the signal). The adapter
 * cannot tell the two aborts apart on the signal itself, and it does not copy the request to
 * substitute a signal of its own (that would copy every header and re-wrap the body). What makes
 * it safe instead:
 *
 * - the legacy abort comes only after the last byte of the response was handed to the
 *   connection, and `@edge-mcp/core` detaches from `request.signal` as soon as a response is
 *   complete, so the core never treats it as a disconnect (its request log says `ok`);
 * - the adapter itself judges "caused by a disconnect" only while the handler is still answering
 *   (an error thrown by `handler.fetch`), never after a response exists.
 *
 * Handlers of your own that keep listening to `request.signal` after their response is complete
 * would see the legacy abort, so run Deno with `--unstable-no-legacy-abort` (apps/server's start:deno does):
 * then the signal aborts only on a disconnect, as on Node and Bun.
 *
 * **Silent disconnects.** `Deno.serve` may miss a client that leaves before anything was written
 * for its request; build the core handler with {@link RUNTIME_HANDLER_OPTIONS} so that such a
 * client is noticed within 1 s.
 *
 * @module
 */
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import {
  closeHandler,
  DEFAULT_HOSTNAME,
  type DrainOptions,
  healthReply,
  healthResponse,
  internalErrorResponse,
  type ListenInfo,
  listenInfo,
  listening,
  portFromEnv,
  Readiness,
  respond,
  type SignalHooks,
  safeReporter,
  signalExitCode,
  targetOf,
} from '../shared/serve.ts';
import {
  type ErrorReporter,
  type FetchHandler,
  REMOTE_ADDRESS,
  type RuntimeHandlerOptions,
  SHARED_SERVE_KEYS,
} from '../shared/types.ts';
import { answerFast, type FastServing } from '../shared/web-incoming.ts';
import { type DenoHttpServer, type DenoRuntime, type DenoSignal, denoRuntime } from './types.ts';

export type { ListenInfo } from '../shared/serve.ts';
export { readSkillFolder, type SkillFolderOptions } from '../shared/skill-folder.ts';
export type { ErrorReporter, FetchHandler, RuntimeHandlerOptions } from '../shared/types.ts';
export { type RequestLogOptions, requestLog } from './request-log.ts';
export type { DenoHttpServer, DenoNetAddr, DenoSignal } from './types.ts';

/**
 * The handler options Deno needs for a departed client to be noticed before the answer starts:
 * `streamAfterMs: 1000`. Use them when building the handler:
 * `createMcpHandler(server, { ...RUNTIME_HANDLER_OPTIONS, … })`.
 *
 * Why: `Deno.serve` (Deno 2.9) does not always notice a client that closes its connection while
 * nothing has been written yet. For some requests (it depends on how the request's bytes arrive:
 * a 2026-07-28 `tools/call` sent by Node's `fetch` or `node:http` is one) `request.signal` never
 * aborts and the handler runs to its end; the server's socket sits in CLOSE-WAIT. Deno finds the
 * closed connection as soon as it writes the response head, and aborts `request.signal` then. So
 * a call still running after `streamAfterMs` answers as an SSE stream (its head and a comment go
 * out): a client that left before is noticed then, one that leaves later at once.
 *
 * The bound: a client that leaves a call nothing was written for is noticed within
 * `streamAfterMs` of the call's start (1 s); calls that finish sooner answer plain JSON as before.
 * Lower it for a tighter bound (0: every call that does not finish at once streams).
 */
export const RUNTIME_HANDLER_OPTIONS: RuntimeHandlerOptions = { streamAfterMs: 1_000 };

/** Options of {@link serve}. */
export interface ServeOptions extends DrainOptions {
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
   * Process signals that trigger a graceful shutdown (through `Deno.addSignalListener`); a second
   * one during shutdown exits at once with `Deno.exit(128 + signal number)`. The listeners are
   * removed when the shutdown completes. Signals the platform does not support (on Windows all
   * but SIGINT and SIGBREAK) are skipped. `false` installs none.
   *
   * @default ['SIGINT', 'SIGTERM']
   */
  shutdownSignals?: DenoSignal[] | false;
  /**
   * Called once the server listens (instead of Deno's "Listening on …" line). If it throws, the
   * server is closed and `serve()` rejects.
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
   * Receives errors that escaped `handler.fetch` (answered with a JSON-RPC 500), errors of
   * response bodies, and failures of `handler.close()`. Errors caused by the client disconnecting
   * are not reported.
   *
   * @default logs the error with `console.error`
   */
  onError?: ErrorReporter;
}

/** The names {@link serve} accepts; another is refused with the nearest of them. */
const SERVE_OPTION_KEYS = optionKeys<ServeOptions>()([...SHARED_SERVE_KEYS]);

/** A listening server, as resolved by {@link serve}. */
export interface DenoServer extends ListenInfo {
  /** The underlying `Deno.HttpServer`. */
  readonly server: DenoHttpServer;
  /**
   * Shuts down gracefully; see {@link serve}. Idempotent: every call (and the abort of
   * `options.signal`, or a shutdown signal) shares one shutdown.
   */
  close(): Promise<void>;
}

/**
 * Serves `handler` with `Deno.serve` and resolves once the server listens (rejects if it cannot,
 * e.g. `AddrInUse`). Needs `--allow-net`; `--allow-env` only to read `PORT`/`HOST` (without it the
 * defaults apply).
 *
 * Graceful shutdown (on `close()`, on the abort of `options.signal`, or on a shutdown signal):
 * `handler.close('shutdown')` first, so in-flight handlers abort and the handler's open streams
 * end, then `server.shutdown()`, which stops accepting connections and waits for the open
 * responses to finish. Then the signal listeners are removed, so Deno exits by itself when the
 * application holds nothing else.
 *
 * @example
 * ```ts
 * import { serve } from '@edge-mcp/adapters/deno';
 *
 * const { url } = await serve(handler, { port: 3000 });
 * ```
 */
export async function serve(
  handler: FetchHandler,
  options: ServeOptions = {},
): Promise<DenoServer> {
  // Before the runtime: a misspelt option (`prot`) is the caller's mistake wherever it runs.
  checkOptionKeys(options, SERVE_OPTION_KEYS, 'serve()');
  const deno = denoRuntime();
  const { signal } = options;
  signal?.throwIfAborted();
  const report = safeReporter(options.onError);
  const hostname = options.hostname ?? (readEnv(deno, 'HOST') || DEFAULT_HOSTNAME);
  const port = options.port ?? portFromEnv(readEnv(deno, 'PORT'));
  // The core's handler is answered through its fast entry (the body read natively by Deno).
  const entry = handler[HANDLE];
  // Deno reads a refused upload to its end whatever the answer: the connection closes after it.
  const serving: FastServing = { report, streamed: (response) => response, refused: 'close' };
  const readiness = new Readiness();
  const answer: DenoHandler = entry
    ? (request, info) => answerFast(handler, entry, request, serving, info.remoteAddr?.hostname)
    : (request, info) => {
        (request as { [REMOTE_ADDRESS]?: string })[REMOTE_ADDRESS] = info.remoteAddr?.hostname;
        return respond(handler, request, report, 'close');
      };

  // Deno.serve binds synchronously (and throws if it cannot); `addr` is set on return. Its own
  // `signal` option is not used: aborting it cuts every connection instead of a graceful stop.
  const server = deno.serve(
    {
      hostname,
      port,
      onListen() {},
      // Reached when the handler's value is not a usable Response, or a response body errors.
      onError(error) {
        report(error);
        return internalErrorResponse();
      },
    },
    options.health === false
      ? answer
      : (request, info) => {
          const reply = healthReply(request.method, targetOf(request.url), readiness);
          return reply ? healthResponse(reply, request.method) : answer(request, info);
        },
  );
  const info = listenInfo(hostname, server.addr.port, server.addr.hostname);

  const hooks: SignalHooks<DenoSignal> = {
    add(name, listener) {
      try {
        deno.addSignalListener(name, listener);
        return true;
      } catch {
        return false; // not supported on this platform
      }
    },
    remove: (name, listener) => deno.removeSignalListener(name, listener),
    exit: (name) => deno.exit(signalExitCode(name)),
  };
  return listening(info, server, options, hooks, () => {
    readiness.ready = false;
    return shutdown(server, handler, report, options.graceMs ?? 0);
  });
}

type DenoHandler = Parameters<DenoRuntime['serve']>[1];

async function shutdown(
  server: DenoHttpServer,
  handler: FetchHandler,
  report: ErrorReporter,
  graceMs: number,
): Promise<void> {
  // The handler first: aborting its handlers and ending its streams is what lets the open
  // responses finish, which server.shutdown() waits for (it never cuts a response itself).
  const settled = closeHandler(handler, report, graceMs);
  // With a grace the server keeps listening while the handler drains (see the Node adapter).
  if (graceMs > 0) await settled;
  const stopped = server.shutdown().catch(report);
  await settled;
  await stopped;
}

/** An environment variable, or `undefined` when unset or not readable (no `--allow-env`). */
function readEnv(deno: DenoRuntime, name: string): string | undefined {
  try {
    return deno.env.get(name);
  } catch {
    return undefined;
  }
}
