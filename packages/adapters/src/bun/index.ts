/**
 * Bun adapter: serve a fetch handler with `Bun.serve`.
 *
 * Bun's own `Request` goes to the handler untouched; Bun aborts its `signal` when the client
 * disconnects before the response is complete, and not after a completed response. The core's
 * handler is called through its fast entry with that `Request` read through (the body read
 * natively by Bun, not through a stream reader), and a complete answer becomes one `Response`.
 *
 * **Event-stream headers.** Bun (1.4) sends the head of a streamed response only with its first
 * body chunk. An event stream with nothing to send yet (a 2025-06-18 GET stream, a resume with
 * nothing to replay) would leave its client without even a status until the first keep-alive,
 * 15 s later. So when a `text/event-stream` answer has no chunk ready, the adapter writes an SSE
 * comment line (`:`) first, which clients ignore; answers that have one are sent untouched.
 *
 * @module
 */
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import { PROCESS_SIGNAL_HOOKS } from '../shared/process-signals.ts';
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
  safeReporter,
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
import { type BunHttpServer, bunRuntime } from './types.ts';

// Bun's `process` is Node's: the same batched writer.
export { type RequestLogOptions, requestLog } from '../node/request-log.ts';
export type { ListenInfo } from '../shared/serve.ts';
export { readSkillFolder, type SkillFolderOptions } from '../shared/skill-folder.ts';
export type { ErrorReporter, FetchHandler, RuntimeHandlerOptions } from '../shared/types.ts';
export type { BunHttpServer } from './types.ts';

/**
 * Handler options Bun needs: none. Bun aborts `request.signal` as soon as a client leaves,
 * whatever was written. Exported for code that runs unchanged on every runtime
 * (`createMcpHandler(server, { ...RUNTIME_HANDLER_OPTIONS })`); see the Deno adapter's.
 */
export const RUNTIME_HANDLER_OPTIONS: RuntimeHandlerOptions = {};

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
   * Process signals that trigger a graceful shutdown (through `process.on`); a second one during
   * shutdown exits at once with `128 + signal number`. The listeners are removed when the
   * shutdown completes. `false` installs none.
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
   * Receives errors that escaped `handler.fetch` (answered with a JSON-RPC 500) and failures of
   * `handler.close()`. Errors caused by the client disconnecting are not reported.
   *
   * @default logs the error with `console.error`
   */
  onError?: ErrorReporter;
}

/** The names {@link serve} accepts; another is refused with the nearest of them. */
const SERVE_OPTION_KEYS = optionKeys<ServeOptions>()([...SHARED_SERVE_KEYS]);

/** A listening server, as resolved by {@link serve}. */
export interface BunServer extends ListenInfo {
  /** The underlying `Bun.Server`. */
  readonly server: BunHttpServer;
  /**
   * Shuts down gracefully; see {@link serve}. Idempotent: every call (and the abort of
   * `options.signal`, or a shutdown signal) shares one shutdown.
   */
  close(): Promise<void>;
}

/**
 * Serves `handler` with `Bun.serve` and resolves once the server listens (rejects if it cannot,
 * e.g. `EADDRINUSE`).
 *
 * Bun's idle timeout is turned off (`idleTimeout: 0`): its default closes a connection after 10 s
 * without a byte written, which would cut a tool call that runs longer and an event stream
 * between keep-alives. The handler decides how long an exchange lasts.
 *
 * Graceful shutdown (on `close()`, on the abort of `options.signal`, or on a shutdown signal):
 * `server.stop()` stops accepting connections and `handler.close('shutdown')` aborts in-flight
 * handlers and ends the handler's open streams; once the handler has settled (and the streams it
 * ended have written their last bytes) `server.stop(true)` closes the remaining connections,
 * which also cuts streams the handler does not own. Then the signal listeners are removed, so Bun
 * exits by itself when the application holds nothing else.
 *
 * @example
 * ```ts
 * import { serve } from '@edge-mcp/adapters/bun';
 *
 * const { url } = await serve(handler, { port: 3000 });
 * ```
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<BunServer> {
  // Before the runtime: a misspelt option (`prot`) is the caller's mistake wherever it runs.
  checkOptionKeys(options, SERVE_OPTION_KEYS, 'serve()');
  const bun = bunRuntime();
  const { signal } = options;
  signal?.throwIfAborted();
  const report = safeReporter(options.onError);
  const hostname = options.hostname ?? (process.env.HOST || DEFAULT_HOSTNAME);
  const port = options.port ?? portFromEnv(process.env.PORT);

  const entry = handler[HANDLE];
  const serving: FastServing = { report, streamed: headNow, refused: 'drain' };
  const readiness = new Readiness();
  const answer: BunFetch = entry
    ? (request, bunServer) => answerFast(handler, entry, request, serving, bunServer)
    : async (request, bunServer) => {
        (request as { [REMOTE_ADDRESS]?: string })[REMOTE_ADDRESS] =
          bunServer.requestIP(request)?.address;
        return headNow(await respond(handler, request, report, 'drain'));
      };
  // Bun.serve binds synchronously (and throws if it cannot).
  const server = bun.serve({
    hostname,
    port,
    // Off: Bun's 10 s default would cut long tool calls and event streams (see above).
    idleTimeout: 0,
    fetch:
      options.health === false
        ? answer
        : (request, bunServer) => {
            const reply = healthReply(request.method, targetOf(request.url), readiness);
            return reply ? healthResponse(reply, request.method) : answer(request, bunServer);
          },
    // Reached when the handler's value is not a usable Response.
    error(error) {
      report(error);
      return internalErrorResponse();
    },
  });
  const info = listenInfo(hostname, server.port, server.address?.address ?? hostname);

  return listening(info, server, options, PROCESS_SIGNAL_HOOKS, () => {
    readiness.ready = false;
    return shutdown(server, handler, report, options.graceMs ?? 0);
  });
}

type BunFetch = Parameters<ReturnType<typeof bunRuntime>['serve']>[0]['fetch'];

/** An SSE comment line: clients ignore it; Bun sends the response head with it. */
const OPENING_COMMENT = new TextEncoder().encode(':\n\n');

/** Resolves after the current task and its microtasks: a chunk already queued is read by then. */
function nextTask(): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), 0));
}

/**
 * Relays an event stream, starting with {@link OPENING_COMMENT} when its first chunk is not
 * ready at once, so that Bun sends the head now rather than with that chunk.
 */
class HeadFirst implements UnderlyingDefaultSource<Uint8Array> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.#reader = reader;
  }

  async start(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const first = this.#reader.read();
    const ready = await Promise.race([first, nextTask()]);
    if (ready !== undefined) return push(controller, ready);
    this.#pending = first;
    controller.enqueue(OPENING_COMMENT);
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const next = this.#pending ?? this.#reader.read();
    this.#pending = undefined;
    push(controller, await next);
  }

  cancel(reason: unknown): Promise<void> {
    return this.#reader.cancel(reason);
  }
}

function push(
  controller: ReadableStreamDefaultController<Uint8Array>,
  { done, value }: ReadableStreamReadResult<Uint8Array>,
): void {
  if (done) controller.close();
  else controller.enqueue(value);
}

/** `response`, or the same event stream relayed through {@link HeadFirst}. */
function headNow(response: Response): Response {
  const body = response.body;
  if (body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return response;
  }
  return new Response(new ReadableStream(new HeadFirst(body.getReader()), { highWaterMark: 0 }), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function shutdown(
  server: BunHttpServer,
  handler: FetchHandler,
  report: ErrorReporter,
  graceMs: number,
): Promise<void> {
  const settled = closeHandler(handler, report, graceMs);
  // With a grace the server keeps listening while the handler drains (see the Node adapter).
  if (graceMs > 0) await settled;
  // Graceful: stop accepting now; resolves once the open exchanges are over.
  const drained = server.stop().catch(report);
  await settled;
  // Streams the handler just ended are still writing their last bytes; let them out before
  // cutting what is left (connections the handler does not own, stalled writes).
  await new Promise((resolve) => setImmediate(resolve));
  await server.stop(true).catch(report);
  await drained;
}
