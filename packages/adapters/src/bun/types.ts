/**
 * The part of the `Bun` global the Bun adapter uses, typed structurally.
 *
 * Depending on `bun-types` would bring Bun's whole global environment into the Node-typed rest
 * of this package, so the adapter reads `globalThis.Bun` once, through {@link bunRuntime}, and
 * these interfaces describe only what it calls (as of Bun 1.x).
 *
 * @module
 */

/** The options of `Bun.serve` the adapter passes. */
export interface BunServeConfig {
  hostname?: string;
  port?: number;
  /**
   * Seconds a connection may stay silent before Bun closes it; `0` turns the timer off.
   * Bun's default is 10.
   */
  idleTimeout?: number;
  fetch(request: Request, server: BunHttpServer): Response | Promise<Response>;
  /** Answers for a handler that threw (or returned something that is not a Response). */
  error?(error: Error): Response | Promise<Response>;
}

/** `Bun.Server`, what `Bun.serve` returns. */
export interface BunHttpServer {
  readonly port: number;
  readonly hostname: string | undefined;
  /** The bound address (`hostname` is the one asked for, `localhost` included). */
  readonly address?: { address: string; family: string; port: number } | null;
  readonly url: URL;
  /**
   * Stops accepting connections. Without `closeActiveConnections` it resolves once the open
   * exchanges have ended by themselves; with `true` it closes them at once.
   */
  stop(closeActiveConnections?: boolean): Promise<void>;
  ref(): void;
  unref(): void;
  /** The peer address of a request's connection (`null` for one over a Unix socket). */
  requestIP(request: Request): { address: string; family: string; port: number } | null;
}

/** The members of the `Bun` global the adapter calls. */
export interface BunRuntime {
  serve(options: BunServeConfig): BunHttpServer;
}

/** `globalThis.Bun`; throws outside Bun. */
export function bunRuntime(): BunRuntime {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (bun === undefined) throw new Error('@edge-mcp/adapters/bun needs the Bun runtime');
  return bun;
}
