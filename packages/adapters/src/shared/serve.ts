/**
 * Pieces the `serve()` functions of every runtime share. Runtime-neutral: Web APIs only, so the
 * Deno and Bun adapters can import it without pulling in `node:` modules.
 *
 * @module
 */
import { ErrorCode, errorMessage } from '@edge-mcp/core/adapter';
import { exposureWarning, type ListenInfo } from './listen-info.ts';
import { afterRefusal, type RefusedBody, refusesBody } from './refused-body.ts';
import type { ErrorReporter, FetchHandler } from './types.ts';

export { HEALTH_PATHS, healthReply, healthResponse, Readiness, targetOf } from './health.ts';
export {
  DEFAULT_HOSTNAME,
  DEFAULT_PORT,
  exposureWarning,
  isLoopback,
  isWildcard,
  type ListenInfo,
  listenInfo,
  portFromEnv,
  urlHost,
} from './listen-info.ts';

/** JSON-RPC body for errors the adapters answer themselves (no request id is known there). */
export const INTERNAL_ERROR = errorMessage(undefined, {
  code: ErrorCode.InternalError,
  message: 'Internal error',
});

/** A fresh 500 response with a JSON-RPC "Internal error" body. */
export function internalErrorResponse(): Response {
  return new Response(INTERNAL_ERROR, {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * Runs `handler.fetch` on the runtime's own `Request` (passed through untouched, so its `signal`
 * is the runtime's disconnect signal). A handler that throws gets a JSON-RPC 500; the error is
 * reported unless the client's departure caused it. Never rejects.
 */
export async function respond(
  handler: FetchHandler,
  request: Request,
  report: ErrorReporter,
  refused: RefusedBody,
): Promise<Response> {
  try {
    const response = await handler.fetch(request);
    return refusesBody(request, response.status)
      ? await afterRefusal(request, response, refused)
      : response;
  } catch (error) {
    if (!causedByDisconnect(request, error)) report(error);
    return internalErrorResponse();
  }
}

/**
 * Whether `error` is the abort of `request.signal`. Only asked while the handler is still
 * answering, i.e. before any response exists, so a runtime that also aborts the signal after a
 * completed response (Deno's legacy mode) cannot be mistaken for a disconnect here.
 */
export function causedByDisconnect(request: { signal: AbortSignal }, error: unknown): boolean {
  return (
    request.signal.aborted &&
    (error === request.signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}

/** Wraps `onError` (default: log) so that a throwing reporter cannot cause an unhandled rejection. */
export function safeReporter(onError: ErrorReporter = logError): ErrorReporter {
  return (error) => {
    try {
      onError(error);
    } catch {}
  };
}

function logError(error: unknown): void {
  console.error('[edge-mcp]', error);
}

/**
 * Calls `handler.close()` right away (an async function runs synchronously up to its first
 * await) and reports, rather than throws, its failure.
 */
export async function closeHandler(
  handler: FetchHandler,
  report: ErrorReporter,
  graceMs: number,
): Promise<void> {
  try {
    await (graceMs > 0 ? handler.close?.({ graceMs }) : handler.close?.());
  } catch (error) {
    report(error);
  }
}

/** How an adapter installs process-signal listeners on its runtime. */
export interface SignalHooks<S extends string> {
  /** Installs `listener` for `name`; returns `false` when the platform does not support it. */
  add(name: S, listener: () => void): boolean;
  remove(name: S, listener: () => void): void;
  /** Exits the process at once because `name` arrived again during the shutdown. */
  exit(name: S): void;
}

/**
 * The same signal again within this many milliseconds is the same request, not a second one. A
 * terminal's Ctrl+C, or a `kill` of the process group, reaches the runtime directly and once more
 * through the `pnpm start` (or launcher) above it, which passes signals on to its child: measured
 * 4–8 ms apart. A person pressing Ctrl+C twice is slower than this.
 */
export const DUPLICATE_SIGNAL_MS = 500;

/** Lets a timer run without keeping the process alive (Node and Bun timers, Deno timer ids). */
export function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
  else (globalThis as { Deno?: { unrefTimer?(id: unknown): void } }).Deno?.unrefTimer?.(timer);
}

/**
 * Wires the triggers of a graceful shutdown: `close()`, the abort of `signal` and the first of
 * `signals`. They share one run of `shutdown`; a second signal during it calls `hooks.exit`
 * (the same signal again within {@link DUPLICATE_SIGNAL_MS} of the last one acted on is ignored).
 * The listeners are removed once `shutdown` has settled (after a shutdown a signal started, once
 * that window is over too), so they do not outlive the server.
 * Returns the idempotent `close()`.
 */
export function shutdownTriggers<S extends string>(
  shutdown: () => Promise<void>,
  signals: readonly S[],
  hooks: SignalHooks<S>,
  signal: AbortSignal | undefined,
  now: () => number = () => performance.now(),
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  let last: { name: S; at: number } | undefined;
  const installed: Array<[S, () => void]> = [];
  const detach = (): void => {
    for (const [name, listener] of installed) hooks.remove(name, listener);
    installed.length = 0;
    signal?.removeEventListener('abort', onAbort);
  };
  // A duplicate of the signal that started the shutdown may still be on its way when the shutdown
  // is over: catch it for the rest of the window (default handling would kill the process), on a
  // timer that keeps nothing alive.
  const detachSoon = (): void => {
    const wait = last === undefined ? 0 : DUPLICATE_SIGNAL_MS - (now() - last.at);
    if (wait <= 0) detach();
    else unrefTimer(setTimeout(detach, wait));
  };
  const close = (): Promise<void> => {
    closing ??= shutdown().finally(detachSoon);
    return closing;
  };
  // Rejections reach whoever awaits close(); a trigger nobody awaits must not leave one unhandled.
  const start = (): void => {
    close().catch(() => {});
  };
  function onAbort(): void {
    start();
  }
  for (const name of signals) {
    const listener = (): void => {
      const at = now();
      if (last !== undefined && last.name === name && at - last.at < DUPLICATE_SIGNAL_MS) return;
      last = { name, at };
      // A second signal means the user does not want to wait for the shutdown.
      if (closing !== undefined) hooks.exit(name);
      else start();
    };
    if (hooks.add(name, listener)) installed.push([name, listener]);
  }
  // The signal may have aborted while the server was binding (after `serve()` checked it).
  if (signal?.aborted) start();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return close;
}

/** Process signals every adapter shuts down on unless told otherwise. */
export const DEFAULT_SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The drain and health options every runtime's `serve()` takes. */
export interface DrainOptions {
  /**
   * Milliseconds a shutdown (a signal, `close()`, the abort of `signal`) lets calls in flight
   * finish: `/readyz` turns 503 at once, the handler drains (new requests 503 with Retry-After,
   * streams ended for their clients to reconnect elsewhere), and only then does the server stop
   * listening and cut what is left. Keep it below the platform's kill timeout (Kubernetes'
   * `terminationGracePeriodSeconds`).
   *
   * @default 0 (no drain: the shutdown aborts everything at once)
   */
  graceMs?: number | undefined;
  /**
   * Whether `serve()` answers `GET /healthz` (200 while the process runs) and `GET /readyz`
   * (200 until a shutdown starts, then 503) itself, before the handler.
   *
   * @default true
   */
  health?: boolean | undefined;
}

/** What every runtime's `serve()` takes about its lifecycle. */
export interface LifecycleOptions<S extends string> extends DrainOptions {
  signal?: AbortSignal | undefined;
  shutdownSignals?: S[] | false | undefined;
  onListen?(info: ListenInfo): void;
  onWarning?(message: string): void;
}

function warn(message: string): void {
  console.warn(message);
}

/**
 * The end of every runtime's `serve()`, once it listens: wires the shutdown triggers (the
 * options' signal, the shutdown signals, `close()`), warns once if other machines can reach the
 * server (`onWarning`, by default `console.warn`; a throwing one is ignored), tells `onListen`
 * (closing the server again if it throws) and gives what `serve()` resolves with.
 */
export async function listening<S extends string, T>(
  info: ListenInfo,
  server: T,
  options: LifecycleOptions<S>,
  hooks: SignalHooks<S>,
  shutdown: () => Promise<void>,
): Promise<ListenInfo & { server: T; close(): Promise<void> }> {
  const signals =
    options.shutdownSignals === false
      ? []
      : (options.shutdownSignals ?? (DEFAULT_SHUTDOWN_SIGNALS as unknown as S[]));
  const close = shutdownTriggers(shutdown, signals, hooks, options.signal);
  const warning = exposureWarning(info);
  if (warning !== undefined) {
    try {
      (options.onWarning ?? warn)(warning);
    } catch {}
  }
  try {
    options.onListen?.(info);
  } catch (error) {
    await close();
    throw error;
  }
  return { ...info, server, close };
}

/**
 * Linux numbers of the signals worth shutting down on, for the `128 + n` exit code of a forced
 * exit (SIGBREAK is Windows' Ctrl+Break). Unknown names give `128`.
 */
const SIGNAL_NUMBERS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
  SIGBREAK: 21,
};

/** `128 + signal number`, the exit code shells report for a process killed by `name`. */
export function signalExitCode(name: string): number {
  return 128 + (SIGNAL_NUMBERS[name] ?? 0);
}
