/**
 * Where a `serve()` listens: the defaults, the `PORT` of the environment, and what the bound
 * address means (the URLs that reach it, whether other machines can).
 *
 * @module
 */

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
