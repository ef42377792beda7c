/**
 * The part of the `Deno` namespace the Deno adapter uses, typed structurally.
 *
 * There is no Deno types package to depend on, and ambient `declare global` typings here would
 * leak a fake `Deno` global into the Node-typed rest of this package and merge (or collide) with
 * Deno's own declarations under `deno check`. So the adapter reads `globalThis.Deno` once, through
 * {@link denoRuntime}, and these interfaces describe only what it calls (as of Deno 2.x).
 *
 * @module
 */

/** The signal names `Deno.addSignalListener` accepts (Windows supports SIGINT and SIGBREAK only). */
export type DenoSignal =
  | 'SIGABRT'
  | 'SIGALRM'
  | 'SIGBREAK'
  | 'SIGBUS'
  | 'SIGCHLD'
  | 'SIGCONT'
  | 'SIGEMT'
  | 'SIGFPE'
  | 'SIGHUP'
  | 'SIGILL'
  | 'SIGINFO'
  | 'SIGINT'
  | 'SIGIO'
  | 'SIGPOLL'
  | 'SIGPIPE'
  | 'SIGPROF'
  | 'SIGPWR'
  | 'SIGQUIT'
  | 'SIGSEGV'
  | 'SIGSTKFLT'
  | 'SIGSTOP'
  | 'SIGSYS'
  | 'SIGTERM'
  | 'SIGTRAP'
  | 'SIGTSTP'
  | 'SIGTTIN'
  | 'SIGTTOU'
  | 'SIGURG'
  | 'SIGUSR1'
  | 'SIGUSR2'
  | 'SIGVTALRM'
  | 'SIGWINCH'
  | 'SIGXCPU'
  | 'SIGXFSZ';

/** `Deno.NetAddr`. */
export interface DenoNetAddr {
  transport: 'tcp' | 'udp';
  hostname: string;
  port: number;
}

/** `Deno.ServeHandlerInfo`. */
export interface DenoServeHandlerInfo {
  remoteAddr: DenoNetAddr;
  /** Resolves once the response was fully sent, rejects if it was not. */
  completed: Promise<void>;
}

/** The options of `Deno.serve` the adapter passes (`Deno.ServeTcpOptions`). */
export interface DenoServeTcpOptions {
  port?: number;
  hostname?: string;
  /** Aborting it closes the server at once (not gracefully). */
  signal?: AbortSignal;
  /** Replaces Deno's "Listening on …" log line. */
  onListen?(localAddr: DenoNetAddr): void;
  /** Answers for a handler that threw; also told about response body errors. */
  onError?(error: unknown): Response | Promise<Response>;
}

/** `Deno.ServeHandler`. */
export type DenoServeHandler = (
  request: Request,
  info: DenoServeHandlerInfo,
) => Response | Promise<Response>;

/** `Deno.HttpServer`, what `Deno.serve` returns. */
export interface DenoHttpServer {
  readonly addr: DenoNetAddr;
  /** Resolves once the server has finished. */
  readonly finished: Promise<void>;
  /** Stops accepting connections and resolves once every open response has been completed. */
  shutdown(): Promise<void>;
  ref(): void;
  unref(): void;
}

/** The members of the `Deno` namespace the adapter calls. */
export interface DenoRuntime {
  serve(options: DenoServeTcpOptions, handler: DenoServeHandler): DenoHttpServer;
  addSignalListener(signal: DenoSignal, handler: () => void): void;
  removeSignalListener(signal: DenoSignal, handler: () => void): void;
  exit(code?: number): never;
  env: { get(key: string): string | undefined };
  /** `Deno.stdout`: `writeSync` may write part of what it is given, and says how much. */
  stdout: { writeSync(bytes: Uint8Array): number };
}

/** `globalThis.Deno`; throws outside Deno. */
export function denoRuntime(): DenoRuntime {
  const deno = (globalThis as { Deno?: DenoRuntime }).Deno;
  if (deno === undefined) throw new Error('@edge-mcp/adapters/deno needs the Deno runtime');
  return deno;
}
