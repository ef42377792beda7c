/**
 * Pieces the `serve()` functions of every runtime share. Runtime-neutral: Web APIs only, so the
 * Deno and Bun adapters can import it without pulling in `node:` modules.
 *
 * @module
 */
import { ErrorCode, errorMessage } from '@edge-mcp/core/adapter';
import { afterRefusal, type RefusedBody, refusesBody } from './refused-body.ts';
import type { ErrorReporter, FetchHandler } from './types.ts';

/** Where a server listens, as passed to `onListen` and included in the result of `serve()`. */
export interface ListenInfo {
  /**
   * Base URL of the bound address, without a trailing slash: `http://127.0.0.1:8787`. A wildcard
   * bind shows as what it is, `http://0.0.0.0:8787` or `http://[::]:8787` (every interface); use
   * `localUrl` to reach it.
   */
  url: string;
  /**
   * A base URL that reaches the server from this machine: `url`, except for a wildcard bind,
   * where it is the loopback address of the same family (`http://127.0.0.1:8787`,
   * `http://[::1]:8787`).
   */
  localUrl: string;
  /** The bound port (the chosen one when `port` was `0`). */
  port: number;
  /** The hostname the server was asked to bind. */
  hostname: string;
  /** The address actually bound: `127.0.0.1` for `localhost`, `0.0.0.0` for every IPv4 interface. */
  address: string;
  /**
   * Whether other machines can reach it: bound to every interface or to an address that is not
   * loopback. `serve()` then warns once (`onWarning`).
   */
  exposed: boolean;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOSTNAME = '127.0.0.1';

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
export async function closeHandler(handler: FetchHandler, report: ErrorReporter): Promise<void> {
  try {
    await handler.close?.();
  } catch (error) {
    report(error);
  }
}

/** The `PORT` value of the environment, else the default. */
export function portFromEnv(value: string | undefined): number {
  return value ? Number(value) : DEFAULT_PORT;
}

/** An address without the brackets of a URL's IPv6 host. */
function bare(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

/** `0.0.0.0` or `::`: every interface of its family (`::` usually takes IPv4 too). */
export function isWildcard(address: string): boolean {
  const host = bare(address);
  return host === '0.0.0.0' || host === '::' || host === '::0' || /^(0+:){7}0+$/.test(host);
}

/** `localhost`, `127.0.0.0/8` (also IPv4-mapped) or `::1`: reachable from this machine only. */
export function isLoopback(address: string): boolean {
  const host = bare(address).toLowerCase();
  if (host === 'localhost' || host === '::1' || /^(0+:){7}0*1$/.test(host)) return true;
  const v4 = host.startsWith('::ffff:') ? host.slice('::ffff:'.length) : host;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** A host for a URL: IPv6 literals need brackets. */
export function urlHost(address: string): string {
  const host = bare(address);
  return host.includes(':') ? `[${host}]` : host;
}

/** The loopback address that reaches a wildcard bind of the same family. */
function loopbackOf(address: string): string {
  return bare(address).includes(':') ? '::1' : '127.0.0.1';
}

/**
 * `ListenInfo` for a bound port: `address` is what the runtime reports it bound (defaults to the
 * asked `hostname`).
 */
export function listenInfo(hostname: string, port: number, address: string = hostname): ListenInfo {
  const url = `http://${urlHost(address)}:${port}`;
  const wildcard = isWildcard(address);
  return {
    url,
    localUrl: wildcard ? `http://${urlHost(loopbackOf(address))}:${port}` : url,
    port,
    hostname,
    address: bare(address),
    exposed: wildcard || !isLoopback(address),
  };
}

/**
 * The warning `serve()` gives once when it listens where other machines can reach it: MCP
 * servers run tools for whoever can connect, and the DNS-rebinding check admits only the host
 * names in `allowedHosts` (loopback names by default). `undefined` for a loopback bind.
 */
export function exposureWarning(info: ListenInfo): string | undefined {
  if (!info.exposed) return undefined;
  const where = isWildcard(info.address)
    ? `on all interfaces (${info.url})`
    : `on ${info.url}, an address other machines can reach`;
  return `[edge-mcp] listening ${where}: anyone who can connect to port ${info.port} can call its tools. Keep it behind a firewall or a proxy, or bind 127.0.0.1 (HOST); list the host names clients use in the handler's allowedHosts.`;
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
function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
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

/** What every runtime's `serve()` takes about its lifecycle. */
export interface LifecycleOptions<S extends string> {
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
